import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { capturingLogger, tempDirs, until } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-catalog-capabilities-");
const everything = {
  command: process.execPath,
  args: [resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};
const researchTool = "mcp_everything_simulate-research-query";

describe("catalog cache: capabilities", () => {
  it("a warm cache keeps the task support server-everything declared: its task-required tool is listed, no warning", async () => {
    const cacheDir = tempDir();
    const env = { HOME: tempDir(), MCP_BRIDGE_CACHE_DIR: cacheDir };
    {
      await using cold = await startBridge({ servers: { everything }, env });
      expect(cold.tool(researchTool)).toBeDefined();
    }
    const [file] = readdirSync(cacheDir).filter(
      (name) => name.startsWith("tools-") && name.endsWith(".json"),
    );
    expect(JSON.parse(readFileSync(join(cacheDir, file as string), "utf8")).capabilities).toMatchObject({
      tasks: { requests: { tools: { call: {} } } },
    });

    const { logger, messages } = capturingLogger();
    await using warm = await startBridge({ servers: { everything }, env, logger });
    // Listed from the cache at once, before the live handshake, and still there once it is live.
    expect(warm.server("everything")?.catalog).toBe("cache");
    expect(warm.tool(researchTool)).toBeDefined();
    await until(
      () =>
        warm.server("everything")?.state === "connected" && warm.server("everything")?.catalog === undefined,
    );
    expect(warm.tool(researchTool)).toBeDefined();
    expect(messages.filter((message) => message.includes("task"))).toEqual([]);
  });
});
