import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { inMemoryServer, startBridge } from "../../src/index.js";
import type { LogFields } from "../../src/util/logger.js";

/** A server in code: a tool that answers, one that reports an error, one that never answers. */
function server() {
  return inMemoryServer(() => {
    const mcp = new McpServer({ name: "calls", version: "1.0.0" });
    const input = { inputSchema: z.object({ token: z.string() }) };
    mcp.registerTool("echo", { description: "Echo", ...input }, async ({ token }) => ({
      content: [{ type: "text", text: `echo ${token}` }],
    }));
    mcp.registerTool("fails", { description: "Fails", ...input }, async ({ token }) => ({
      content: [{ type: "text", text: `bad ${token}` }],
      isError: true,
    }));
    mcp.registerTool(
      "waits",
      { description: "Answers when the call is cancelled", ...input },
      (_args, ctx) =>
        new Promise((resolve) =>
          ctx.mcpReq.signal.addEventListener("abort", () => resolve({ content: [] }), { once: true }),
        ),
    );
    return mcp;
  });
}

describe("the debug line per tool call", () => {
  it("says server, tool, duration and outcome, and never the arguments or the result", async () => {
    const lines: { level: string; message: string; fields?: LogFields }[] = [];
    const log = (level: string) => (message: string, fields?: LogFields) => {
      lines.push({ level, message, ...(fields ? { fields } : {}) });
    };
    await using bridge = await startBridge({
      servers: { calls: { connect: server() } },
      logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
      catalogCache: false,
      pins: false,
    });
    const secret = "s3cret-argument-value";
    await bridge.call("calls/echo", { token: secret });
    await bridge.call("calls/fails", { token: secret }, { onError: "result" });
    await bridge.call("calls/waits", { token: secret }, { timeout: 50, onError: "result" });
    const calls = lines.filter((line) => line.message.startsWith("Call "));
    expect(
      calls.map(({ level, fields }) => ({ level, ...fields, durationMs: typeof fields?.durationMs })),
    ).toEqual([
      { level: "debug", server: "calls", tool: "echo", outcome: "ok", durationMs: "number" },
      { level: "debug", server: "calls", tool: "fails", outcome: "error", durationMs: "number" },
      { level: "debug", server: "calls", tool: "waits", outcome: "timeout", durationMs: "number" },
    ]);
    expect(calls[0]?.message).toMatch(/^Call calls\/echo: ok in \d+ ms$/);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });
});
