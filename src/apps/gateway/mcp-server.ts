import { type RequestId, Server } from "@modelcontextprotocol/server";
import type { Bridge } from "../../bridge/api.js";
import { useIdTables } from "../../util/id-table.js";
import { adminAllowed, adminTools, isAdminTool } from "./admin-tools.js";
import type { UnreadBacklog } from "./backlog.js";
import type { ClientLimiter } from "./client-limits.js";
import { FORWARD_TIMEOUT_MS, type RequestForwarder } from "./forward.js";
import { registerSurface } from "./forwarded-features.js";
import { forwardedTool } from "./forwarded-tool.js";
import { InputRounds } from "./input-rounds.js";
import { type GatewayProfile, profileAllows } from "./profile.js";
import type { RequestTracker } from "./request-tracker.js";
import {
  serveToolCall,
  type ToolCallRequest,
  type ToolCallScope,
  type UpstreamRun,
} from "./served-tool-call.js";
import { registerSubscriptions } from "./subscriptions.js";
import { ClientLogLevel } from "./upstream-logs.js";

export const GATEWAY_NAME = "mcp-bridge";

/** The client a server instance serves, and what bounds it. */
export interface GatewayClient {
  readonly id: string;
  readonly limiter: ClientLimiter;
  /** Whom the limiter counts the current request's calls against (see `limitKeyOf`); default `id`. */
  readonly limitKey?: () => string;
  /** Resolves once the response to request `id` was written out or abandoned; undefined: unknown. */
  readonly delivered?: (id: RequestId) => Promise<void> | undefined;
  /** What the client has not read yet (HTTP, and stdio where stdio-wire.ts bounds its bytes too). */
  readonly backlog?: UnreadBacklog;
  /** Whether the admin tools are on (see admin-tools.ts); the profile decides who may use them. */
  readonly adminTools?: boolean;
  /** The caller the call policy and the audit log see (see callerOf); `id` when unset. */
  readonly caller?: string;
  /**
   * The log level this client asked for, when the caller keeps it (stdio-server.ts); else each server
   * instance keeps its own.
   */
  readonly logLevel?: ClientLogLevel;
  /**
   * Every upstream log message goes to this client by other means (the only client of `serve
   * --stdio`): its calls do not forward their own again. Otherwise a call forwards the messages tied
   * to it (see upstream-logs.ts).
   */
  readonly everyUpstreamLog?: boolean;
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
  // Filters the upstream log messages this client gets (see upstream-logs.ts).
  const logLevel = client.logLevel ?? new ClientLogLevel();
  server.setRequestHandler("logging/setLevel", (request) =>
    tracker.handle("logging/setLevel", request.params, async () => {
      logLevel.set(request.params.level);
      return {};
    }),
  );
  const admin = adminAllowed(client.adminTools, profile);
  const visible = () =>
    bridge.tools().filter((t) => profileAllows(profile, t.server, t.name) && !(admin && isAdminTool(t.name)));
  server.setRequestHandler("tools/list", (request) =>
    tracker.handle("tools/list", request.params, async () => ({
      tools: [...visible().map(forwardedTool), ...(admin ? adminTools : [])],
    })),
  );
  const scope: ToolCallScope = { bridge, profile, client, forwarder, logLevel };
  server.setRequestHandler("tools/call", (request, ctx) =>
    tracker.handle("tools/call", request.params, async () => {
      const name = request.params.name;
      const args = request.params.arguments ?? {};
      // A 2026-07-28 retry carrying answers to an upstream's questions: its parked call resumes, or
      // (an upstream of that era) the answers go upstream as the call's next leg, on any replica.
      const roundCall = { tool: name, args };
      const retry =
        forwarder && InputRounds.isRetry(ctx) ? forwarder.rounds.open(client.id, roundCall, ctx) : undefined;
      if (forwarder && retry?.kind === "parked") return forwarder.rounds.resume(retry, roundCall, ctx);
      const call: ToolCallRequest = {
        id: ctx.mcpReq.id,
        signal: ctx.mcpReq.signal,
        progressToken: ctx.mcpReq._meta?.progressToken,
        notify: (notification) => ctx.mcpReq.notify(notification),
        // A 2026-07-28 request's level is also the channel's latest (stdio-server.ts).
        logThreshold: () => logLevel.forRequest(ctx),
      };
      // While the call runs, its upstream server's elicitation and sampling requests may be asked of
      // this client (see forward.ts): pushed to a 2025-11-25 client within the call, bounded by its
      // signal and FORWARD_TIMEOUT_MS; returned to a 2026-07-28 client as input_required rounds.
      const start = (run: UpstreamRun) => {
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
      };
      return serveToolCall(scope, name, args, call, start);
    }),
  );
  fastCalls.set(server, { scope, tracker });
  registerSurface(server, bridge, tracker, profile, forwarder);
  registerSubscriptions(server, bridge, tracker, profile, forwarder);
  return server;
}

/** What a fast path needs to serve a tools/call of a server instance's client (see fast-path/). */
export interface FastCallEntry {
  readonly scope: ToolCallScope;
  readonly tracker: RequestTracker;
}

const fastCalls = new WeakMap<Server, FastCallEntry>();

/** The tools/call scope of a server instance built by gatewayServer, for the fast paths. */
export function fastCallEntryOf(server: Server): FastCallEntry | undefined {
  return fastCalls.get(server);
}
