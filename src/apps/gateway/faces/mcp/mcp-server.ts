import { type CallToolRequest, Server, type ServerContext } from "@modelcontextprotocol/server";
import type { Bridge } from "../../../../bridge/api.js";
import { serversSettled } from "../../../../bridge/servers/servers-settled.js";
import { useIdTables } from "../../../../sdk/protocol-tables.js";
import type { RequestTracker } from "../../admission/request-tracker.js";
import { RunningCalls } from "../../admission/running-calls.js";
import { elicitationModes } from "../../forwarding/approval-client.js";
import { FORWARD_TIMEOUT_MS, type RequestForwarder } from "../../forwarding/forward.js";
import { registerSurface } from "../../forwarding/forwarded-features.js";
import { forwardedTool } from "../../forwarding/forwarded-tool.js";
import { InputRounds } from "../../forwarding/input-rounds.js";
import {
  type GatewayClient,
  type GatewayInstance,
  serveToolCall,
  type ToolCallRequest,
  type ToolCallScope,
  type UpstreamRun,
} from "../../forwarding/served-tool-call.js";
import { registerSubscriptions } from "../../forwarding/subscriptions.js";
import { ClientLogLevel } from "../../forwarding/upstream-logs.js";
import { type GatewayProfile, profileAllows } from "../../identity/profile.js";
import { adminAllowed, adminTools, callAdminTool, isAdminTool } from "../admin/admin-tools.js";

export const GATEWAY_NAME = "mcp-bridge";

/**
 * What a tools/call of `client` is served with, on the SDK path and the fast paths alike: the admin
 * tools reach the call step through it (`ownTool`), when the client may call them.
 */
export function toolCallScope(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  client: GatewayClient,
  forwarder: RequestForwarder | undefined,
  logLevel: ClientLogLevel,
): ToolCallScope {
  const admin = adminAllowed(client.adminTools, profile);
  const ownTool = admin
    ? (name: string, args: Record<string, unknown>) =>
        isAdminTool(name) ? callAdminTool(bridge, profile, name, args) : undefined
    : undefined;
  return { bridge, profile, client, forwarder, logLevel, ownTool };
}

/**
 * One MCP server instance over the bridge's merged catalog, limited to `profile`, with what a fast
 * path serves its calls with. Cheap to build: the HTTP entry builds one per request (stateless era)
 * and stdio one per connection.
 */
export function gatewayServer(
  bridge: Bridge,
  tracker: RequestTracker,
  profile: GatewayProfile | undefined,
  version: string,
  client: GatewayClient,
  forwarder?: RequestForwarder,
): GatewayInstance {
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
  // A stdio host's connection is one long-lived server: its request tables must not be Maps (see sdk/protocol-tables.ts).
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
  // Only the first listing waits: a host lists once at start, and later ones follow list_changed.
  let listed = false;
  server.setRequestHandler("tools/list", (request, ctx) =>
    tracker.handle("tools/list", request.params, async () => {
      if (!listed) await serversSettled(bridge, ctx.mcpReq.signal, client.listWaitMs ?? 0);
      listed = true;
      return { tools: [...visible().map(forwardedTool), ...(admin ? adminTools : [])] };
    }),
  );
  const scope = toolCallScope(bridge, profile, client, forwarder, logLevel);
  server.setRequestHandler("tools/call", (request, ctx) =>
    sdkToolCall(server, scope, tracker, request.params, ctx),
  );
  registerSurface(server, bridge, tracker, profile, forwarder);
  registerSubscriptions(server, bridge, tracker, profile, forwarder);
  return { server, calls: { scope, tracker }, running: new RunningCalls() };
}

/**
 * A `tools/call` the SDK server dispatched: a 2026-07-28 retry's parked call resumed, else the call
 * step (forwarding/served-tool-call.ts) with how this era's upstream questions reach the client.
 */
function sdkToolCall(
  server: Server,
  scope: ToolCallScope,
  tracker: RequestTracker,
  request: CallToolRequest["params"],
  ctx: ServerContext,
) {
  const { client, forwarder, logLevel } = scope;
  return tracker.handle("tools/call", request, async () => {
    const name = request.name;
    const args = request.arguments ?? {};
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
          elicitModes: () => elicitationModes(server.getClientCapabilities()),
        },
        ctx.mcpReq.signal,
      );
    };
    return serveToolCall(scope, name, args, call, start);
  });
}
