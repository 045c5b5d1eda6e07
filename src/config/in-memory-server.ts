import type { Transport } from "@modelcontextprotocol/client";
import type { ConnectServer } from "./model.js";

/**
 * A `connect` for a server the host builds with the SDK (an `McpServer`, or a low-level `Server`):
 * each call builds a new server with `create` and connects it to one end of a new in-memory pair,
 * returning the other end. A new server each time, since an SDK server serves one transport at a time
 * and a reconnect (after a crash, an idle timeout or `restart`) needs a new transport.
 */
export function inMemoryServer(
  create: () =>
    | { connect(transport: Transport): Promise<void> }
    | Promise<{ connect(transport: Transport): Promise<void> }>,
): ConnectServer {
  return async () => {
    // Loaded on the first connect: `import "mcp-bridge"` loads no part of the SDK.
    const { InMemoryTransport } = await import("@modelcontextprotocol/client");
    const [client, server] = InMemoryTransport.createLinkedPair();
    await (await create()).connect(server);
    return client;
  };
}
