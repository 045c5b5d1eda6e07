import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { tempDirs, until } from "../helpers/wait.js";

/**
 * BridgeOptions.lazyWithCatalog (what the daemon behind `attach` runs): a server the catalog cache
 * lists waits for its first use; `lazy: false` and `required: true` start with the bridge; a listing
 * of resources or prompts starts the waiting servers that declared them, and no other.
 */

const tempDir = tempDirs("mcp-bridge-lazy-catalog-");
const everything = {
  command: process.execPath,
  args: [resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

function spawns(file: string): number {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

describe("lazyWithCatalog", () => {
  it("starts only what must start; a call, or a listing of what a server declared, starts the rest", async () => {
    const home = tempDir();
    const env = { HOME: home, MCP_BRIDGE_CACHE_DIR: join(home, "cache") };
    const log = (name: string) => join(home, `${name}.spawns`);
    const servers = {
      plain: stdioEntry("catalog", {}, ["--spawn-log", log("plain")]),
      eager: stdioEntry("catalog", { lazy: false }, ["--spawn-log", log("eager")]),
      must: stdioEntry("catalog", { required: true }, ["--spawn-log", log("must")]),
      everything,
    };
    {
      // No catalog yet: every server starts, even with the option, and fills the cache.
      await using cold = await startBridge({ servers, env, lazyWithCatalog: true });
      expect(cold.servers().map((s) => s.state)).toEqual([
        "connected",
        "connected",
        "connected",
        "connected",
      ]);
    }
    expect([spawns(log("plain")), spawns(log("eager")), spawns(log("must"))]).toEqual([1, 1, 1]);

    await using warm = await startBridge({ servers, env, lazyWithCatalog: true });
    // Every tool listed at once, from the cache.
    expect(warm.tool("mcp_plain_echo")).toBeDefined();
    expect(warm.tool("mcp_everything_echo")).toBeDefined();
    await until(() => warm.server("eager")?.state === "connected", 30_000);
    expect(warm.server("must")?.state).toBe("connected");
    expect(warm.server("plain")).toMatchObject({ state: "idle", catalog: "cache" });
    expect(warm.server("everything")).toMatchObject({ state: "idle", catalog: "cache" });
    expect([spawns(log("plain")), spawns(log("eager")), spawns(log("must"))]).toEqual([1, 2, 2]);

    // Listing resources is a use of the servers that declared resources (everything), not of plain.
    const resources = await warm.resources();
    expect(resources.some((resource) => resource.uri.startsWith("demo://"))).toBe(true);
    expect(warm.server("everything")?.state).toBe("connected");
    expect(warm.server("plain")?.state).toBe("idle");
    expect(spawns(log("plain"))).toBe(1);

    // The first call starts plain and is answered by it.
    expect((await warm.call("mcp_plain_echo")).text).toBe("I am echo");
    expect(spawns(log("plain"))).toBe(2);
    expect(warm.server("plain")?.catalog).toBeUndefined();
  }, 120_000);
});
