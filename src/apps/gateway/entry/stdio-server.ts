import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Bridge } from "../../../bridge/api.js";
import { UnreadBacklog } from "../admission/backlog.js";
import { ClientLimiter } from "../admission/client-limits.js";
import { requestTracker } from "../admission/request-tracker.js";
import { gatewayServer } from "../faces/mcp/mcp-server.js";
import { StdioFastPath } from "../fast-path/stdio-fast-path.js";
import { onListChanges } from "../forwarding/list-changes.js";
import type { GatewayInstance } from "../forwarding/served-tool-call.js";
import { ClientLogLevel, forwardedLog, LogValve, passes } from "../forwarding/upstream-logs.js";
import { resolveStdioGatewayOptions, type StdioGatewayOptions } from "./gateway-options.js";
import { GatewayStdioWire } from "./stdio-wire.js";

/** Serves the bridge's merged catalog as one MCP server on this process's stdin/stdout. */
export function serveGatewayStdio(
  bridge: Bridge,
  given: StdioGatewayOptions = {},
): {
  /** Resolves when the channel ended, however (stdin's end, stdout's failure, a client not reading). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
} {
  const options = resolveStdioGatewayOptions(given);
  const { telemetry, forwarder, version } = options;
  const tracker = requestTracker(telemetry, { "network.transport": "pipe" });
  const limiter = new ClientLimiter(options.limits);
  const servers = new Set<GatewayInstance>();
  const wire = new GatewayStdioWire(options.stdin, options.stdout, options);
  // A call keeps its limiter slot until its response was written out: a host that stops reading cannot
  // have more results waiting than it may have calls running.
  const logLevel = new ClientLogLevel();
  const client = {
    id: "stdio",
    limiter,
    delivered: (id: string | number) => wire.delivered(id),
    // A result past the host's unread bound is refused before it is serialized (an error goes
    // instead), and a call is refused before it reaches upstream while the host's unread bytes are at
    // the bound: a host that stops reading costs no more results made and copied for nothing.
    backlog: new UnreadBacklog(options.maxUnreadBytes, { soleClient: true }),
    adminTools: options.adminTools,
    logLevel,
    everyUpstreamLog: options.soleClient,
    listWaitMs: options.listWaitMs,
    llmResults: options.llmResults,
  };
  // tools/call lines of an initialized 2025-era client are answered without the SDK's dispatch.
  const fast = new StdioFastPath(
    () => servers,
    (message) => wire.send(message),
  );
  if (options.fastPath) wire.intercept = fast.take;
  void wire.closed.then(() => fast.close());
  const handle = serveStdio(
    () => {
      const instance = gatewayServer(bridge, tracker, undefined, version, client, forwarder);
      servers.add(instance);
      return instance.server;
    },
    { transport: wire },
  );
  const stopListChanges = passListChanges(bridge, servers);
  const stopLogs = options.soleClient ? passEveryUpstreamLog(bridge, servers, logLevel) : undefined;
  const stop = () => {
    stopListChanges();
    stopLogs?.();
  };
  return {
    closed: wire.closed,
    async close() {
      stop();
      await handle.close();
    },
  };
}

/**
 * Each listing that changed, told to every instance whose client initialized; returns the unsubscribe.
 * A client that went away cannot be told; its send failing is nothing to report. Upstream servers
 * come up while the host initializes: a client that has not initialized yet lists afresh anyway.
 */
function passListChanges(bridge: Bridge, servers: ReadonlySet<GatewayInstance>): () => void {
  return onListChanges(bridge, (changes) => {
    for (const { server } of servers) {
      if (server.getClientVersion() === undefined) continue;
      if (changes.tools) server.sendToolListChanged().catch(() => undefined);
      if (changes.resources) server.sendResourceListChanged().catch(() => undefined);
      if (changes.prompts) server.sendPromptListChanged().catch(() => undefined);
    }
  });
}

/**
 * The only client of the bridge gets every upstream log message at its level (capped, see LogValve);
 * otherwise a call gets those tied to it (forwarding/served-tool-call.ts) and the rest stay in the bridge's log (see
 * upstream-logs.ts). Returns what stops it.
 */
function passEveryUpstreamLog(
  bridge: Bridge,
  servers: ReadonlySet<GatewayInstance>,
  logLevel: ClientLogLevel,
): () => void {
  const valve = new LogValve((params) => {
    for (const { server } of servers)
      server.notification({ method: "notifications/message", params }).catch(() => undefined);
  });
  const off = bridge.on("serverLog", (message) => {
    if (![...servers].some((s) => s.server.getClientVersion() !== undefined)) return;
    if (passes(message.level, logLevel.current())) valve.offer(forwardedLog(message));
  });
  return () => {
    off();
    valve.close();
  };
}
