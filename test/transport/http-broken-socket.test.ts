import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { McpBridgeError, startBridge } from "../../src/index.js";
import { listen } from "../helpers/http-servers.js";
import { until } from "../helpers/wait.js";

/**
 * A live Streamable HTTP server one of whose sockets breaks outside any request (here: the POST that
 * carries a `notifications/cancelled`, which the SDK reports through `onerror`): the bridge checks
 * with a bounded ping before it gives up the session, so the broken socket costs nothing.
 */

/** A stateful MCP server whose POSTs of `notifications/cancelled` have their socket destroyed. */
async function serverBreakingCancelPosts() {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  let broken = 0;
  let initialized = 0;
  const create = () => {
    const server = new McpServer({ name: "breaks-sockets", version: "1.0.0" });
    server.registerTool(
      "add",
      { inputSchema: z.object({ a: z.number(), b: z.number() }) },
      async ({ a, b }) => ({
        content: [{ type: "text", text: String(a + b) }],
      }),
    );
    server.registerTool("wait", { inputSchema: z.object({}) }, (_args, extra) => {
      const signal = (extra as { signal?: AbortSignal }).signal;
      return new Promise((resolve) => {
        signal?.addEventListener("abort", () => resolve({ content: [{ type: "text", text: "aborted" }] }));
      });
    });
    return server;
  };
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    let parsed: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.includes("notifications/cancelled")) {
        broken++;
        req.socket.destroy();
        return;
      }
      parsed = JSON.parse(text);
      if (text.includes('"initialize"')) initialized++;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      const created = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      transport = created;
      await create().connect(transport);
    }
    await transport.handleRequest(req, res, parsed);
  };
  const http = await listen((req, res) => {
    handler(req, res).catch(() => res.destroy());
  });
  return { http, broken: () => broken, initialized: () => initialized };
}

describe("Streamable HTTP: one broken socket of a live server", () => {
  it("does not end the session: a bounded ping confirms the server is alive", async () => {
    const server = await serverBreakingCancelPosts();
    await using _http = server.http;
    const heard: string[] = [];
    const note = (message: string) => heard.push(message);
    await using bridge = await startBridge({
      servers: { live: { type: "http", url: server.http.url } },
      logger: { debug: note, info: note, warn: note, error: note },
    });
    expect((await bridge.call("live/add", { a: 1, b: 2 })).text).toBe("3");
    expect(server.initialized()).toBe(1);
    // The call times out: the bridge cancels it upstream, and that POST's socket is destroyed.
    const timedOut = await bridge.call("live/wait", {}, { timeout: 300 }).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(McpBridgeError);
    await until(() => server.broken() >= 1, 10_000);
    await until(() => heard.some((line) => line.includes("transport error")), 10_000);
    // Calls go on in the same session: no reconnection, no new initialize.
    for (let i = 0; i < 3; i++)
      expect((await bridge.call("live/add", { a: i, b: 1 })).text).toBe(String(i + 1));
    expect(bridge.server("live")?.state).toBe("connected");
    expect(bridge.server("live")?.restarts).toBe(0);
    expect(server.initialized()).toBe(1);
  }, 60_000);
});
