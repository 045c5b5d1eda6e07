import type {
  CallToolResult,
  ProgressToken,
  RequestId,
  Server,
  ServerNotification,
} from "@modelcontextprotocol/server";
import type { ApprovalClient, Bridge, CallUpstream, InputRound, Progress } from "../../../bridge/api.js";
import type { ServerLogMessage } from "../../../bridge/features/logging.js";
import { errorText } from "../../../util/text-of.js";
import { approximateSize, type UnreadBacklog } from "../admission/backlog.js";
import type { ClientLimiter } from "../admission/client-limits.js";
import type { RequestTracker } from "../admission/request-tracker.js";
import type { RunningCalls } from "../admission/running-calls.js";
import { type GatewayProfile, profileAllows } from "../identity/profile.js";
import type { ConsentAsk } from "../per-caller/consent.js";
import {
  backlogFull,
  rateLimited,
  resultUndelivered,
  unknownTool,
  upstreamDownResult,
} from "../wire-errors.js";
import { approvalClientOf } from "./approval-client.js";
import type { DownstreamCall, RequestForwarder } from "./forward.js";
import { forwardedResult, maxResultCharsOf, modelResult } from "./forwarded-tool.js";
import { downServerOf, listedTool } from "./listed-tool.js";
import { retryDownServer } from "./retry-down.js";
import { type ClientLogLevel, forwardedLog, type LogThreshold, LogValve, passes } from "./upstream-logs.js";
import { statusAllows } from "./upstream-status.js";

/** The client a server instance serves, and what bounds it. */
export interface GatewayClient {
  readonly id: string;
  readonly limiter: ClientLimiter;
  /** Whom the limiter counts the current request's calls against (see `limitKeyOf`); default `id`. */
  readonly limitKey?: () => string;
  /** Resolves once the response to request `id` was written out or abandoned; undefined: unknown. */
  readonly delivered?: (id: RequestId) => Promise<void> | undefined;
  /** What the client has not read yet (HTTP, and stdio where entry/stdio-wire.ts bounds its bytes too). */
  readonly backlog?: UnreadBacklog;
  /** Whether the admin tools are on (see faces/admin/admin-tools.ts); the profile decides who may use them. */
  readonly adminTools?: boolean;
  /** The caller the call policy and the audit log see (see callerOf); `id` when unset. */
  readonly caller?: string;
  /**
   * The log level this client asked for, when the caller keeps it (entry/stdio-server.ts); else each server
   * instance keeps its own.
   */
  readonly logLevel?: ClientLogLevel;
  /**
   * Every upstream log message goes to this client by other means (the only client of `serve
   * --stdio`): its calls do not forward their own again. Otherwise a call forwards the messages tied
   * to it (see upstream-logs.ts).
   */
  readonly everyUpstreamLog?: boolean;
  /** How long this client's first `tools/list` waits for servers still connecting (GATEWAY_DEFAULTS.listWaitMs); default 0. */
  readonly listWaitMs?: number;
  /** Results as the library gives them to a model (GatewayOptions.llmResults); default: unchanged. */
  readonly llmResults?: boolean;
  /**
   * This client's own connections to per-caller servers (per-caller/caller-upstreams.ts), asking
   * `ask` for its consent to a login: passed as the bridge's `upstream`.
   */
  readonly ownUpstream?: (ask: ConsentAsk | undefined) => CallUpstream;
}

/**
 * One downstream `tools/call` as the gateway serves it, whichever path brought it (the SDK server's
 * handler, or a fast path that answers on the wire itself): what the call needs of its request.
 */
export interface ToolCallRequest {
  readonly id: RequestId;
  /** Aborted when the request is cancelled or its client went away. */
  readonly signal: AbortSignal;
  /** The token the client chose for progress notifications, when it asked for them. */
  readonly progressToken: ProgressToken | undefined;
  /** Sends a notification on this request's stream. */
  readonly notify: (notification: ServerNotification) => Promise<void>;
  /** The level of upstream log messages tied to this call that the client gets, read per upstream leg. */
  readonly logThreshold: () => LogThreshold;
}

/** Everything a served tool call depends on besides its request. */
export interface ToolCallScope {
  readonly bridge: Bridge;
  readonly profile: GatewayProfile | undefined;
  readonly client: GatewayClient;
  readonly forwarder: RequestForwarder | undefined;
  /** The client's log level (see upstream-logs.ts). */
  readonly logLevel: ClientLogLevel;
  /**
   * The gateway's own tools this client may call (the admin tools, see faces/admin/admin-tools.ts):
   * the result of `name`, or undefined when it is not one of them (the call goes upstream).
   */
  readonly ownTool?: (name: string, args: Record<string, unknown>) => Promise<CallToolResult> | undefined;
}

/** What a `tools/call` of one server instance's client is served with, on either path. */
export interface ToolCallEntry {
  readonly scope: ToolCallScope;
  readonly tracker: RequestTracker;
}

/**
 * One server instance of the gateway (faces/mcp/mcp-server.ts) with what its calls are served with:
 * the SDK path dispatches on `server`, a fast path (fast-path/) answers with `calls` itself, and
 * `running` holds that path's calls for the connection's cancellations and end (identity/legacy-sessions.ts).
 */
export interface GatewayInstance {
  readonly server: Server;
  readonly calls: ToolCallEntry;
  readonly running: RunningCalls;
}

/**
 * Runs the upstream call once admitted: given what the forwarder may ask this client while it runs
 * (undefined: nothing to track) and the signal that cancels it.
 */
export type UpstreamRun = (
  call: DownstreamCall | undefined,
  signal: AbortSignal,
  round?: InputRound,
) => Promise<CallToolResult>;

/**
 * The gateway's answer to a tool call: admin tools, a down server's error result, the profile (a tool
 * outside it is unknown), the client's unread backlog and limits, then the upstream call, started by
 * `start` (which decides how upstream questions reach the client). Throws the JSON-RPC errors of
 * wire-errors.ts. Shared by the SDK handler (faces/mcp/mcp-server.ts) and the fast paths (fast-path/).
 */
export async function serveToolCall<Started>(
  scope: ToolCallScope,
  name: string,
  args: Record<string, unknown>,
  request: ToolCallRequest,
  start: (run: UpstreamRun) => Promise<Started>,
): Promise<CallToolResult | Started> {
  const { bridge, profile, client } = scope;
  const own = scope.ownTool?.(name, args);
  if (own) return own;
  // A tool of a server that is down: the server is tried again at once (retry-down.ts), and if it is
  // still down the call says so, to a client that may see that server.
  const down = bridge.tool(name) ? undefined : downServerOf(bridge, name);
  if (down && statusAllows(bridge, profile, down.name)) {
    const back = await retryDownServer(bridge, down, request.signal);
    const now = back ? undefined : (bridge.server(down.name) ?? down);
    if (now) {
      const reason = now.lastError?.message;
      return upstreamDownResult({ name, server: now.name, state: now.state, reason });
    }
  }
  // A tool whose server still connects is waited for (the gateway serves before its servers are up).
  const tool = await listedTool(bridge, name, request.signal);
  // A tool outside the profile is answered exactly like a tool that does not exist.
  if (!tool || !profileAllows(profile, tool.server, tool.name)) throw unknownTool(name);
  const unread = client.backlog?.unread(client.id) ?? 0;
  if (client.backlog?.full(client.id)) {
    throw backlogFull({ tool: name, unread, limit: client.backlog.limit });
  }
  // Over the concurrency limit the call waits its turn (cancelled with its request), up to a bound.
  const admitted = await client.limiter.admit(client.limitKey?.() ?? client.id, request.signal);
  if (!admitted.ok) {
    throw rateLimited({ tool: name, reason: admitted.reason, retryAfterSeconds: admitted.retryAfterSeconds });
  }
  return start((call, signal, round) => {
    const untrack = call && scope.forwarder?.track(tool.server, call);
    const logs = client.everyUpstreamLog ? undefined : callLogs(client, request, request.logThreshold());
    // callUpstream never rejects: an upstream failure is an error result.
    const target = { name, server: tool.server };
    const ask: ConsentAsk | undefined = call && ((params) => call.elicit(params));
    const asker = { client, profile, approvalClient: approvalClientOf(call), ask };
    return callUpstream(bridge, target, args, request, signal, asker, logs, round).then((result) => {
      untrack?.();
      return heldUntilSent(client, request, name, result, admitted.release);
    });
  });
}

/**
 * The result, held against the client's limiter slot and unread backlog until its response has left:
 * a client that does not read cannot make the gateway hold more results than it may run calls, nor
 * more bytes than its backlog allows (past it, a short error is sent instead of the result).
 */
function heldUntilSent(
  client: GatewayClient,
  request: ToolCallRequest,
  name: string,
  result: CallToolResult,
  release: () => void,
): CallToolResult {
  // A cancelled request is never answered: nothing to wait for.
  const sent = request.signal.aborted ? undefined : client.delivered?.(request.id);
  const backlog = client.backlog;
  if (!sent) {
    release();
    return result;
  }
  if (!backlog) {
    void sent.then(release);
    return result;
  }
  const size = approximateSize(result);
  const unread = backlog.unread(client.id);
  if (backlog.take(client.id, size)) {
    void sent.then(() => {
      release();
      backlog.give(client.id, size);
    });
    return result;
  }
  // The result is abandoned (a short error goes instead): nothing of it is held.
  release();
  throw resultUndelivered({ tool: name, size, unread, limit: backlog.limit });
}

/** Requests whose notifications are counted in their client's backlog: bytes counted so far. */
const notified = new WeakMap<ToolCallRequest, { bytes: number }>();

/**
 * Sends a notification (progress) on a request's stream, or drops it when its client already left
 * too much unread: a flood of them to a client that does not read is not kept.
 */
function boundedNotify(
  client: GatewayClient,
  request: ToolCallRequest,
  notification: ServerNotification,
): void {
  const backlog = client.backlog;
  if (backlog) {
    const size = approximateSize(notification.params);
    if (!backlog.take(client.id, size)) return;
    let counted = notified.get(request);
    if (!counted) {
      const entry = { bytes: 0 };
      counted = entry;
      notified.set(request, entry);
      const sent = client.delivered?.(request.id);
      if (sent) void sent.then(() => backlog.give(client.id, entry.bytes));
      else queueMicrotask(() => backlog.give(client.id, entry.bytes));
    }
    counted.bytes += size;
  }
  request.notify(notification).catch(() => undefined);
}

/** The log messages tied to one call, sent on its request's stream at the client's level, capped. */
interface CallLogs {
  readonly onLog: (message: ServerLogMessage) => void;
  /** Tells the client of messages dropped and not reported yet (before the call's result). */
  readonly close: () => void;
}

function callLogs(
  client: GatewayClient,
  request: ToolCallRequest,
  threshold: LogThreshold,
): CallLogs | undefined {
  if (threshold === "none") return undefined;
  const valve = new LogValve((params) =>
    boundedNotify(client, request, { method: "notifications/message", params }),
  );
  return {
    onLog: (message) => {
      if (passes(message.level, threshold)) valve.offer(forwardedLog(message));
    },
    close: () => valve.close(),
  };
}

/** Who the call is for: the client, its profile, and how a person behind it can be asked. */
interface Asker {
  readonly client: GatewayClient;
  readonly profile: GatewayProfile | undefined;
  readonly approvalClient: ApprovalClient | undefined;
  /** How the per-caller mode asks this client's consent to an upstream login (per-caller/). */
  readonly ask: ConsentAsk | undefined;
}

/** One upstream call as this client's result: an upstream failure is an error result, never a dropped connection. */
async function callUpstream(
  bridge: Bridge,
  { name, server }: { name: string; server: string },
  args: Record<string, unknown>,
  request: ToolCallRequest,
  signal: AbortSignal,
  { client, profile, approvalClient, ask }: Asker,
  logs: CallLogs | undefined,
  inputRound: InputRound | undefined,
): Promise<CallToolResult> {
  // Upstream progress goes to the downstream client under the token it chose, when it asked for it.
  const token = request.progressToken;
  const onProgress =
    token === undefined
      ? undefined
      : (p: Progress) =>
          boundedNotify(client, request, {
            method: "notifications/progress",
            params: { progressToken: token, ...p },
          });
  try {
    // A failure becomes an error result that says what happened and what to do (see forwardedResult).
    const result = await bridge.call(name, args, {
      signal,
      onError: "result",
      // The call policy's `caller` rules and the audit log see who called; a policy `ask` goes to
      // this client as an elicitation when it declared one, else to the `approvals` page or webhook.
      caller: client.caller ?? client.id,
      approvalClient,
      // A tool that calls others for this client (code mode's execute_code) reaches what it may.
      reach: profile,
      resetTimeoutOnProgress: onProgress !== undefined,
      onProgress,
      onLog: logs?.onLog,
      // A 2026-07-28 client: an upstream of that era's own rounds come back to be passed on (input-rounds.ts).
      inputRound,
      upstream: client.ownUpstream?.(ask),
    });
    // The same on every path (SDK handler, fast paths): each one's answer is made here.
    if (client.llmResults === true || profile?.llmResults === true) {
      return modelResult(result, maxResultCharsOf(bridge, server));
    }
    return forwardedResult(result);
  } catch (error) {
    return { content: [{ type: "text" as const, text: `Error: ${errorText(error)}` }], isError: true };
  } finally {
    logs?.close();
  }
}
