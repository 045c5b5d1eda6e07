import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { statefulHandler } from "../fixtures/servers/lib.js";

/** An HTTP server on 127.0.0.1, port 0, closed (connections included) by `close()` or `await using`. */
export interface LocalHttpServer extends AsyncDisposable {
  readonly url: string;
  close(): Promise<void>;
}

export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  path = "/mcp",
  options: { keepAliveTimeoutMs?: number } = {},
): Promise<LocalHttpServer> {
  const server: Server = createServer(handler);
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}${path}`, close, [Symbol.asyncDispose]: close };
}

/** A real Streamable HTTP MCP server (stateful sessions) with an `add` tool, in this process. */
export function startMcpHttpServer(name = "http-calc"): Promise<LocalHttpServer> {
  return listen(
    statefulHandler(() => {
      const server = new McpServer({ name, version: "1.0.0" });
      server.registerTool(
        "add",
        { description: "Add two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
        async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      );
      return server;
    }),
  );
}

/** Answers every request with HTTP 500. */
export function startFailingHttpServer(): Promise<LocalHttpServer> {
  return listen((_req, res) => {
    res.writeHead(500, { "content-type": "text/plain" }).end("internal error (fixture)");
  });
}

/** Answers 200 with a body that is not MCP. */
export function startGarbageHttpServer(): Promise<LocalHttpServer> {
  return listen((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end('{"hello": "not json-rpc"');
  });
}

/** Accepts requests and never answers them. */
export function startSilentHttpServer(): Promise<LocalHttpServer> {
  return listen(() => {});
}

/** A legacy HTTP+SSE server (protocol 2024-11-05), built with the v1 SDK's SSEServerTransport. */
export async function startLegacySseServer(): Promise<LocalHttpServer> {
  const { McpServer: LegacyMcpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js");
  const transports = new Map<string, InstanceType<typeof SSEServerTransport>>();
  return listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      const server = new LegacyMcpServer({ name: "legacy-sse", version: "0.9.0" });
      server.tool("add", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
        content: [{ type: "text", text: String(a + b) }],
      }));
      await server.connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/messages" && transport) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end("not found");
  }, "/sse");
}
