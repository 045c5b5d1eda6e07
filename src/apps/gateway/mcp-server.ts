import {
  type CallToolResult,
  type RequestId,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Bridge, InputRound } from "../../bridge/api.js";
import { useIdTables } from "../../util/id-table.js";
import { errorText } from "../../util/text-of.js";
import { adminAllowed, adminTools, callAdminTool, isAdminTool } from "./admin-tools.js";
import { approximateSize, type UnreadBacklog } from "./backlog.js";
import type { ClientLimiter } from "./client-limits.js";
import { type DownstreamCall, FORWARD_TIMEOUT_MS, type RequestForwarder } from "./forward.js";
import { registerSurface } from "./forwarded-features.js";
import { forwardedResult, forwardedTool } from "./forwarded-tool.js";
import { InputRounds } from "./input-rounds.js";
import { downServerOf, listedTool } from "./listed-tool.js";
import { type GatewayProfile, profileAllows } from "./profile.js";
import type { RequestTracker } from "./request-tracker.js";
import { registerSubscriptions } from "./subscriptions.js";
import { statusAllows } from "./upstream-status.js";
import {
  backlogFull,
  rateLimited,
  resultUndelivered,
  unknownTool,
  upstreamDownResult,
} from "./wire-errors.js";

export const GATEWAY_NAME = "mcp-bridge";

/** The client a server instance serves, and what bounds it. */
export interface GatewayClient {
  readonly id: string;
  readonly limiter: ClientLimiter;
  /** Whom the limiter counts the current request's calls against (see `limitKeyOf`); default `id`. */
  readonly limitKey?: () => string;
  /** Resolves once the response to request `id` was written out or abandoned; undefined: unknown. */
  readonly delivered?: (id: RequestId) => Promise<void> | undefined;
  /** What the client has not read yet (HTTP; the stdio channel bounds its own, see stdio-wire.ts). */
  readonly backlog?: UnreadBacklog;
  /** Whether the admin tools are on (see admin-tools.ts); the profile decides who may use them. */
  readonly adminTools?: boolean;
  /** The caller the call policy and the audit log see (see callerOf); `id` when unset. */
  readonly caller?: string;
}

/**
 * One MCP server instance over the bridge's merged catalog, limited to `profile`. Cheap to build: the
 * HTTP entry builds one per request (stateless era) and stdio one per connection.
 */
export function gatewayServer(
  bridge: Bridge,
  tracker: RequestTracker,
  profile: GatewayProfile | undefined,
  version: string,
  client: GatewayClient,
  forwarder?: RequestForwarder,
): Server {
  const server = new Server(
    { name: GATEWAY_NAME, version },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
    },
  );
  // A stdio host's connection is one long-lived server: its request tables must not be Maps (see id-table.ts).
  useIdTables(server);
  // Accepted, as the logging capability promises; no upstream log message is passed on (see forward.ts).
  server.setRequestHandler("logging/setLevel", (request) =>
    tracker.handle("logging/setLevel", request.params, async () => ({})),
  );
  const admin = adminAllowed(client.adminTools, profile);
  const visible = () =>
    bridge.tools().filter((t) => profileAllows(profile, t.server, t.name) && !(admin && isAdminTool(t.name)));
  server.setRequestHandler("tools/list", (request) =>
    tracker.handle("tools/list", request.params, async () => ({
      tools: [...visible().map(forwardedTool), ...(admin ? adminTools : [])],
    })),
  );
  server.setRequestHandler("tools/call", (request, ctx) =>
    tracker.handle("tools/call", request.params, async () => {
      const name = request.params.name;
      // A 2026-07-28 retry carrying answers to an upstream's questions: its parked call resumes, or
      // (an upstream of that era) the answers go upstream as the call's next leg, on any replica.
      const roundCall = { tool: name, args: request.params.arguments ?? {} };
      const retry =
        forwarder && InputRounds.isRetry(ctx) ? forwarder.rounds.open(client.id, roundCall, ctx) : undefined;
      if (forwarder && retry?.kind === "parked") return forwarder.rounds.resume(retry, roundCall, ctx);
      if (admin && isAdminTool(name)) {
        return callAdminTool(bridge, profile, name, request.params.arguments ?? {});
      }
      // A tool of a server that is down says so at once, to a client that may see that server.
      const down = bridge.tool(name) ? undefined : downServerOf(bridge, name);
      if (down && statusAllows(bridge, profile, down.name)) {
        const reason = down.lastError?.message;
        return upstreamDownResult({ name, server: down.name, state: down.state, reason });
      }
      // A tool whose server still connects is waited for (the gateway serves before its servers are up).
      const tool = await listedTool(bridge, name, ctx.mcpReq.signal);
      // A tool outside the profile is answered exactly like a tool that does not exist.
      if (!tool || !profileAllows(profile, tool.server, tool.name)) {
        throw unknownTool(name);
      }
      const unread = client.backlog?.unread(client.id) ?? 0;
      if (client.backlog && unread >= client.backlog.limit) {
        throw backlogFull({ tool: name, unread, limit: client.backlog.limit });
      }
      // Over the concurrency limit the call waits its turn (cancelled with its request), up to a bound.
      const admitted = await client.limiter.admit(client.limitKey?.() ?? client.id, ctx.mcpReq.signal);
      if (!admitted.ok) {
        throw rateLimited({
          tool: name,
          reason: admitted.reason,
          retryAfterSeconds: admitted.retryAfterSeconds,
        });
      }
      // While the call runs, its upstream server's elicitation and sampling requests may be asked of
      // this client (see forward.ts): pushed to a 2025-11-25 client within the call, bounded by its
      // signal and FORWARD_TIMEOUT_MS; returned to a 2026-07-28 client as input_required rounds.
      const run = (call: DownstreamCall | undefined, signal: AbortSignal, round?: InputRound) => {
        const untrack = call && forwarder?.track(tool.server, call);
        // callUpstream never rejects: an upstream failure is an error result.
        return callUpstream(bridge, name, request.params.arguments ?? {}, ctx, signal, client, round).then(
          (result) => {
            untrack?.();
            return heldUntilSent(client, ctx, name, result, admitted.release);
          },
        );
      };
      if (!forwarder) return run(undefined, ctx.mcpReq.signal);
      if (ctx.mcpReq.envelope !== undefined) {
        const round = retry?.kind === "upstream" ? retry.round : {};
        return forwarder.rounds.start(client.id, roundCall, ctx, run, round);
      }
      const asked = { signal: ctx.mcpReq.signal, timeout: FORWARD_TIMEOUT_MS };
      return run(
        {
          elicit: (params) => ctx.mcpReq.elicitInput(params, asked),
          sample: (params) => ctx.mcpReq.requestSampling(params, asked),
        },
        ctx.mcpReq.signal,
      );
    }),
  );
  registerSurface(server, bridge, tracker, profile, forwarder);
  registerSubscriptions(server, bridge, tracker, profile, forwarder);
  return server;
}

/**
 * The result, held against the client's limiter slot and unread backlog until its response has left:
 * a client that does not read cannot make the gateway hold more results than it may run calls, nor
 * more bytes than its backlog allows (past it, a short error is sent instead of the result).
 */
function heldUntilSent(
  client: GatewayClient,
  ctx: ServerContext,
  name: string,
  result: CallToolResult,
  release: () => void,
): CallToolResult {
  // A cancelled request is never answered: nothing to wait for.
  const sent = ctx.mcpReq.signal.aborted ? undefined : client.delivered?.(ctx.mcpReq.id);
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
const notified = new WeakMap<ServerContext, { bytes: number }>();

/**
 * Sends a notification (log message, progress) on a request's stream, or drops it when its client
 * already left too much unread: a flood of them to a client that does not read is not kept.
 */
function boundedNotify(
  client: GatewayClient,
  ctx: ServerContext,
  notification: Parameters<ServerContext["mcpReq"]["notify"]>[0],
): void {
  const backlog = client.backlog;
  if (backlog) {
    const size = approximateSize(notification.params);
    if (!backlog.take(client.id, size)) return;
    let counted = notified.get(ctx);
    if (!counted) {
      const entry = { bytes: 0 };
      counted = entry;
      notified.set(ctx, entry);
      const sent = client.delivered?.(ctx.mcpReq.id);
      if (sent) void sent.then(() => backlog.give(client.id, entry.bytes));
      else queueMicrotask(() => backlog.give(client.id, entry.bytes));
    }
    counted.bytes += size;
  }
  ctx.mcpReq.notify(notification).catch(() => undefined);
}

/** One upstream call as this client's result: an upstream failure is an error result, never a dropped connection. */
async function callUpstream(
  bridge: Bridge,
  name: string,
  args: Record<string, unknown>,
  ctx: ServerContext,
  signal: AbortSignal,
  client: GatewayClient,
  inputRound: InputRound | undefined,
): Promise<CallToolResult> {
  try {
    // Upstream progress goes to the downstream client under the token it chose, when it asked for it.
    const token = ctx.mcpReq._meta?.progressToken;
    // A failure becomes an error result that says what happened and what to do (see forwardedResult).
    const result = await bridge.call(name, args, {
      signal,
      onError: "result",
      // The call policy's `caller` rules and the audit log see who called; a policy `ask` is a deny
      // here, since the gateway has nobody to ask (no approveCall is passed).
      caller: client.caller ?? client.id,
      // A 2026-07-28 client: an upstream of that era's own rounds come back to be passed on (input-rounds.ts).
      inputRound,
      ...(token === undefined
        ? {}
        : {
            resetTimeoutOnProgress: true,
            onProgress: (p) => {
              boundedNotify(client, ctx, {
                method: "notifications/progress",
                params: { progressToken: token, ...p },
              });
            },
          }),
    });
    return forwardedResult(result);
  } catch (error) {
    return { content: [{ type: "text" as const, text: `Error: ${errorText(error)}` }], isError: true };
  }
}
