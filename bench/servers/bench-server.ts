// The benchmark MCP server: `add`, `text(chars)`, `--tools N` extra tools, `--http` for Streamable HTTP
// (2025-11-25 sessions; with `--modern`, the SDK's stateless 2026-07-28 entry instead).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

const arg = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const extraTools = arg("tools", 0);
const startupDelay = arg("startup-delay", 0);

function build(): McpServer {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Add", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    }),
  );
  server.registerTool(
    "text",
    { description: "chars characters of text", inputSchema: z.object({ chars: z.number() }) },
    async ({ chars }) => ({
      content: [{ type: "text", text: "x".repeat(chars) }],
    }),
  );
  for (let i = 0; i < extraTools; i++) {
    server.registerTool(
      `tool_${i}`,
      {
        description: `Catalog tool ${i}`,
        inputSchema: z.object({ q: z.string().describe("query"), n: z.number().optional() }),
      },
      async () => ({ content: [{ type: "text", text: String(i) }] }),
    );
  }
  return server;
}

if (startupDelay > 0) await new Promise((resolve) => setTimeout(resolve, startupDelay));

if (process.argv.includes("--http") && process.argv.includes("--modern")) {
  // One server instance per request, as the SDK's stateless entry wants.
  const http = createServer(toNodeHandler(createMcpHandler(() => build(), { legacy: "reject" })));
  http.listen(0, "127.0.0.1", () => {
    process.stdout.write(`LISTENING http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
  });
  process.on("SIGTERM", () => process.exit(0));
} else if (process.argv.includes("--http")) {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, created);
        },
      });
      transport = created;
      await build().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, "127.0.0.1", () => {
    process.stdout.write(`LISTENING http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
  });
  process.on("SIGTERM", () => process.exit(0));
} else {
  await build().connect(new StdioServerTransport());
}
