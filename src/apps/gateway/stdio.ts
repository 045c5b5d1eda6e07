import type { Readable, Writable } from "node:stream";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Bridge } from "../../bridge/types.js";
import type { Telemetry } from "../../telemetry/telemetry.js";
import { packageInfo } from "../../util/package-info.js";
import type { RequestForwarder } from "./forward.js";
import { requestTracker } from "./handle.js";
import { ClientLimiter } from "./limits.js";
import { gatewayServer } from "./mcp-server.js";
import { GatewayStdioWire, type StdioWireOptions } from "./stdio-wire.js";

/** Serves the bridge's merged catalog as one MCP server on this process's stdin/stdout. */
export function serveGatewayStdio(
  bridge: Bridge,
  options: {
    /** Version reported in `serverInfo`; default this package's. */
    readonly version?: string;
    readonly telemetry?: Telemetry;
    /** Routes upstream elicitation and sampling to the client (see GatewayOptions.forwarder). */
    readonly forwarder?: RequestForwarder;
    /** Default this process's stdin and stdout. */
    readonly stdin?: Readable;
    readonly stdout?: Writable;
    /** Serve the admin tools (status, reload, restart; see admin-tools.ts). */
    readonly adminTools?: boolean;
  } & StdioWireOptions = {},
): {
  /** Resolves when the channel ended, however (stdin's end, stdout's failure, a client not reading). */
  readonly closed: Promise<void>;
  close(): Promise<void>;
} {
  const { telemetry, forwarder } = options;
  const version = options.version ?? packageInfo().version;
  const tracker = requestTracker(telemetry, { "network.transport": "pipe" });
  const limiter = new ClientLimiter();
  const servers = new Set<ReturnType<typeof gatewayServer>>();
  const wire = new GatewayStdioWire(
    options.stdin ?? process.stdin,
    options.stdout ?? process.stdout,
    options,
  );
  // A call keeps its limiter slot until its response was written out: a host that stops reading cannot
  // have more results waiting than it may have calls running.
  const client = {
    id: "stdio",
    limiter,
    delivered: (id: string | number) => wire.delivered(id),
    adminTools: options.adminTools,
  };
  const handle = serveStdio(
    () => {
      const server = gatewayServer(bridge, tracker, undefined, version, client, forwarder);
      servers.add(server);
      return server;
    },
    { transport: wire },
  );
  // A client that went away cannot be told; its send failing is nothing to report.
  const each = (send: (server: ReturnType<typeof gatewayServer>) => Promise<void>) => () => {
    for (const server of servers) send(server).catch(() => undefined);
  };
  const unsubscribe = [
    bridge.on(
      "toolsChanged",
      each((s) => s.sendToolListChanged()),
    ),
    bridge.on(
      "resourcesChanged",
      each((s) => s.sendResourceListChanged()),
    ),
    bridge.on(
      "promptsChanged",
      each((s) => s.sendPromptListChanged()),
    ),
  ];
  if (forwarder) unsubscribe.push(bridge.on("serverLog", forwarder.log));
  const stop = () => {
    for (const off of unsubscribe) off();
  };
  return {
    closed: wire.closed,
    async close() {
      stop();
      await handle.close();
    },
  };
}
