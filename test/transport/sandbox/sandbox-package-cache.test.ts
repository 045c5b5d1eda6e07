import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../../src/index.js";
import { privateCacheFolder } from "../../../src/transport/sandbox/package-cache.js";
import { fixturePath } from "../../fixtures/servers/index.js";
import { tempDirs } from "../../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-sandbox-cache-");
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

describe("a sandboxed server's private package cache", () => {
  it("is one folder per server name, under the user's cache folder, never shared by look-alike names", () => {
    const env = { XDG_CACHE_HOME: "/c", HOME: "/home/u" };
    const one = privateCacheFolder("one", env);
    expect(one.startsWith("/c/mcp-bridge/sandbox-packages/one-")).toBe(true);
    expect(privateCacheFolder("one", env)).toBe(one);
    expect(privateCacheFolder("a b", env)).not.toBe(privateCacheFolder("a_b", env));
    expect(privateCacheFolder("../x", env)).toMatch(/\/sandbox-packages\/\.\._x-[0-9a-f]{10}$/);
  });
});

/**
 * Two servers run by a package runner (a stand-in `npx`, so nothing is downloaded): each gets its own
 * cache, writable and kept across restarts; neither sees the other's nor the host's `~/.npm`.
 */
describe.skipIf(skip !== undefined)("npx servers, sandboxed", () => {
  it("cannot plant code in each other's cache or the host's", async () => {
    const root = tempDir();
    const home = join(root, "home");
    const cacheHome = join(root, "cache");
    mkdirSync(join(home, ".npm"), { recursive: true });
    writeFileSync(join(home, ".npm", "host.js"), "the host's cache");
    mkdirSync(join(root, "runner", "bin"), { recursive: true });
    const npx = join(root, "runner", "bin", "npx");
    const probe = pathToFileURL(fixturePath("probe-server")).href;
    writeFileSync(npx, `#!${process.execPath}\nimport(${JSON.stringify(probe)});\n`);
    chmodSync(npx, 0o755);
    const repository = fileURLToPath(new URL("../../..", import.meta.url));
    const sandbox = { read: [repository, realpathSync(join(repository, "node_modules"))] };
    const env: Record<string, string | undefined> = { ...process.env, HOME: home, XDG_CACHE_HOME: cacheHome };
    delete env.MCP_BRIDGE_CACHE_DIR;
    await using bridge = await startBridge({
      env,
      servers: { one: { command: npx, sandbox }, two: { command: npx, sandbox } },
    });
    await bridge.ready();
    for (const server of bridge.servers())
      expect(server, server.lastError?.message).toMatchObject({ state: "connected" });
    const seen = async (server: string) =>
      JSON.parse((await bridge.call(`${server}/env`)).text) as Record<string, string>;
    const oneCache = (await seen("one")).npm_config_cache as string;
    const twoCache = (await seen("two")).npm_config_cache as string;
    expect(oneCache).toBe(join(privateCacheFolder("one", env), "npm"));
    expect(twoCache).not.toBe(oneCache);
    expect((await seen("one")).UV_CACHE_DIR?.startsWith(privateCacheFolder("one", env))).toBe(true);

    const planted = join(oneCache, "planted.js");
    mkdirSync(oneCache, { recursive: true });
    expect((await bridge.call("one/write_file", { path: planted, content: "code" })).text).toBe("written");
    expect(readFileSync(planted, "utf8")).toBe("code");
    expect((await bridge.call("two/read_file", { path: planted })).text).toBe("ERROR ENOENT");
    expect((await bridge.call("one/read_file", { path: join(home, ".npm", "host.js") })).text).toBe(
      "ERROR ENOENT",
    );
    // Kept across a restart: it is a cache, not a scratch folder.
    await bridge.restart("one");
    expect((await bridge.call("one/read_file", { path: planted })).text).toBe("code");
  }, 90_000);
});
