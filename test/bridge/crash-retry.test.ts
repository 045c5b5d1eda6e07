import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { inMemoryServer, startBridge } from "../../src/index.js";

/**
 * A server in code whose first session crashes in the middle of any call (its side of the transport
 * closes); the sessions after it answer. `calls` counts the calls each tool received.
 */
function crashesOnce() {
  let sessions = 0;
  const calls: Record<string, number> = {};
  const connect = inMemoryServer(() => {
    const session = ++sessions;
    const mcp = new McpServer({ name: "fragile", version: "1.0.0" });
    const tool = (name: string, annotations: Record<string, boolean>) =>
      mcp.registerTool(name, { description: name, annotations }, async () => {
        calls[name] = (calls[name] ?? 0) + 1;
        if (session === 1) {
          setImmediate(() => void mcp.close());
          return await new Promise<never>(() => {});
        }
        return { content: [{ type: "text", text: `${name} answered by session ${session}` }] };
      });
    tool("read", { readOnlyHint: true });
    tool("put", { readOnlyHint: false, idempotentHint: true });
    tool("append", { readOnlyHint: false });
    return mcp;
  });
  return { connect, calls };
}

async function bridgeOver(entry: Record<string, unknown>) {
  return startBridge({
    servers: { fragile: { restart: { initialDelay: "10ms" }, ...entry } },
    catalogCache: false,
    pins: false,
  });
}

describe("retryCrashedCalls", () => {
  it.each(["read", "put"])(
    "sends a %s (read-only or idempotent) call once more after the reconnect",
    async (name) => {
      const server = crashesOnce();
      await using bridge = await bridgeOver({ connect: server.connect, retryCrashedCalls: true });
      const result = await bridge.call(`fragile/${name}`, {}, { timeout: 30_000 });
      expect(result.text).toBe(`${name} answered by session 2`);
      expect(server.calls[name]).toBe(2);
    },
  );

  it("never retries a tool that may change things", async () => {
    const server = crashesOnce();
    await using bridge = await bridgeOver({ connect: server.connect, retryCrashedCalls: true });
    await expect(bridge.call("fragile/append", {}, { timeout: 30_000 })).rejects.toMatchObject({
      code: "SERVER_CRASHED",
    });
    expect(server.calls.append).toBe(1);
  });

  it("is off by default: the read-only call fails with SERVER_CRASHED", async () => {
    const server = crashesOnce();
    await using bridge = await bridgeOver({ connect: server.connect });
    await expect(bridge.call("fragile/read", {}, { timeout: 30_000 })).rejects.toMatchObject({
      code: "SERVER_CRASHED",
    });
    expect(server.calls.read).toBe(1);
  });

  it("retries once only: a second crash is the call's failure", async () => {
    let calls = 0;
    const connect = inMemoryServer(() => {
      const mcp = new McpServer({ name: "fragile", version: "1.0.0" });
      mcp.registerTool("read", { description: "read", annotations: { readOnlyHint: true } }, async () => {
        calls++;
        setImmediate(() => void mcp.close());
        return await new Promise<never>(() => {});
      });
      return mcp;
    });
    await using bridge = await bridgeOver({ connect, retryCrashedCalls: true });
    await expect(bridge.call("fragile/read", {}, { timeout: 30_000 })).rejects.toMatchObject({
      code: "SERVER_CRASHED",
    });
    expect(calls).toBe(2);
  });
});
