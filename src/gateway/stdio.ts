import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Bridge } from "../bridge/types.js";
import { requestTracker } from "./handle.js";
import { gatewayServer } from "./mcp-server.js";

/** Serves the bridge's merged catalog as one MCP server on this process's stdin/stdout. */
export function serveGatewayStdio(bridge: Bridge, version = "0.0.0"): { close(): Promise<void> } {
  const tracker = requestTracker();
  const servers = new Set<ReturnType<typeof gatewayServer>>();
  const handle = serveStdio(() => {
    const server = gatewayServer(bridge, tracker, undefined, version);
    servers.add(server);
    return server;
  });
  const stop = bridge.on("toolsChanged", () => {
    for (const server of servers) server.sendToolListChanged().catch(() => undefined);
  });
  return {
    async close() {
      stop();
      await handle.close();
    },
  };
}
