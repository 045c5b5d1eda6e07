import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpBridgeError, startBridge, type ToolsChangedEvent } from "../../src/index.js";
import { startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * One server running the `catalog` fixture: its tools come from a file (so the same definition can
 * list other tools on the next start) and its handshake waits for a gate file (so a test decides
 * when it connects). `env` is the bridge's host environment, naming the cache folder.
 */
function setup(tools: string) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-catalog-start-"));
  dirs.push(dir);
  const toolsFile = join(dir, "tools.txt");
  const gate = join(dir, "gate");
  const spawnLog = join(dir, "spawns.txt");
  const cacheDir = join(dir, "cache");
  writeFileSync(toolsFile, tools);
  writeFileSync(gate, "");
  const entry = (extra: Record<string, unknown> = {}) =>
    stdioEntry("catalog", extra, ["--tools-file", toolsFile, "--gate", gate, "--spawn-log", spawnLog]);
  return {
    dir,
    cacheDir,
    env: { MCP_BRIDGE_CACHE_DIR: cacheDir },
    entry,
    setTools: (names: string) => writeFileSync(toolsFile, names),
    closeGate: () => rmSync(gate, { force: true }),
    openGate: () => writeFileSync(gate, ""),
    spawns: () => (existsSync(spawnLog) ? readFileSync(spawnLog, "utf8").trim().split("\n").length : 0),
    cacheFiles: () =>
      existsSync(cacheDir)
        ? readdirSync(cacheDir).filter((f) => f.startsWith("tools-") && f.endsWith(".json"))
        : [],
  };
}

/** A first start with the gate open: the live list is saved to the cache. */
async function warm(t: ReturnType<typeof setup>, servers: Record<string, Record<string, unknown>>) {
  await using bridge = await startBridge({ servers, env: t.env });
  expect(bridge.server("s")?.state).toBe("connected");
}

function nextToolsChanged(bridge: {
  on: (e: "toolsChanged", l: (event: ToolsChangedEvent) => void) => () => void;
}) {
  return new Promise<ToolsChangedEvent>((resolve) => {
    const off = bridge.on("toolsChanged", (event) => {
      off();
      resolve(event);
    });
  });
}

describe("catalog cache: start", () => {
  it("a warm cache: start() resolves with every tool before the server answers; a call waits for it", async () => {
    const t = setup("alpha,beta");
    await warm(t, { s: t.entry() });
    expect(t.cacheFiles()).toHaveLength(1);

    t.closeGate();
    await using bridge = await startBridge({ servers: { s: t.entry() }, env: t.env });
    expect(bridge.tools().map((tool) => tool.name)).toEqual(["mcp_s_alpha", "mcp_s_beta"]);
    expect(bridge.server("s")).toMatchObject({ state: "connecting", catalog: "cache", toolCount: 2 });
    let changes = 0;
    bridge.on("toolsChanged", () => changes++);
    const call = bridge.call("mcp_s_alpha", {}, { timeout: 20_000 });
    t.openGate();
    expect((await call).text).toBe("I am alpha");
    const status = bridge.server("s");
    expect(status?.state).toBe("connected");
    expect(status?.catalog).toBeUndefined();
    // The live list is the cached one: nothing to correct.
    expect(changes).toBe(0);
    expect(t.spawns()).toBe(2);
  });

  it("close() right after a warm start ends the deferred start: no process is spawned", async () => {
    const t = setup("alpha");
    await warm(t, { s: t.entry() });
    const bridge = await startBridge({ servers: { s: t.entry() }, env: t.env });
    expect(bridge.server("s")?.state).toBe("connecting");
    await bridge.close();
    expect(bridge.server("s")?.state).toBe("closed");
    expect(t.spawns()).toBe(1);
  });

  it("a live list that differs corrects the cached one with toolsChanged; a tool gone live is unknown", async () => {
    const t = setup("alpha,beta");
    await warm(t, { s: t.entry() });
    t.setTools("alpha,gamma");
    t.closeGate();
    await using bridge = await startBridge({ servers: { s: t.entry() }, env: t.env });
    expect(bridge.tools().map((tool) => tool.name)).toEqual(["mcp_s_alpha", "mcp_s_beta"]);
    const changed = nextToolsChanged(bridge);
    const gone = bridge.call("mcp_s_beta", {}, { timeout: 20_000 }).catch((error: unknown) => error);
    t.openGate();
    const event = await changed;
    expect(event.server).toBe("s");
    expect(event.tools.map((tool) => tool.name)).toEqual(["mcp_s_alpha", "mcp_s_gamma"]);
    expect(event.removed).toEqual(["mcp_s_beta"]);
    const error = await gone;
    expect(error).toBeInstanceOf(McpBridgeError);
    expect(error).toMatchObject({ code: "TOOL_NOT_FOUND" });
    expect((await bridge.call("mcp_s_gamma")).text).toBe("I am gamma");
    await bridge.close();
    // The corrected list is what the next start reads.
    t.closeGate();
    await using again = await startBridge({ servers: { s: t.entry() }, env: t.env });
    expect(again.tools().map((tool) => tool.name)).toEqual(["mcp_s_alpha", "mcp_s_gamma"]);
    t.openGate();
  });

  it("a server that fails while listed from the cache drops its cached tools; a call fails as without the cache", async () => {
    const t = setup("alpha");
    const servers = { s: t.entry({ restart: { enabled: false } }) };
    await warm(t, servers);
    // The same definition, but the server now exits at start (its tools file is gone).
    rmSync(join(t.dir, "tools.txt"));
    await using bridge = await startBridge({ servers, env: t.env });
    expect(bridge.tools().map((tool) => tool.name)).toEqual(["mcp_s_alpha"]);
    const error = await bridge.call("mcp_s_alpha", {}, { timeout: 20_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpBridgeError);
    expect((error as Error).message).toMatch(/"s"/);
    await bridge.ready();
    expect(bridge.server("s")?.state).toBe("failed");
    expect(bridge.server("s")?.catalog).toBeUndefined();
    expect(bridge.tools()).toEqual([]);
  });

  it("a changed definition misses the cache: start waits for the server", async () => {
    const t = setup("alpha");
    await warm(t, { s: t.entry() });
    await using bridge = await startBridge({
      servers: { s: t.entry({ env: { MODE: "other" } }) },
      env: t.env,
    });
    expect(bridge.server("s")?.state).toBe("connected");
    expect(bridge.server("s")?.catalog).toBeUndefined();
    expect(t.cacheFiles()).toHaveLength(2);
  });

  it("a damaged cache file is ignored (start waits) and replaced by the live list", async () => {
    const t = setup("alpha");
    await warm(t, { s: t.entry() });
    const [file] = t.cacheFiles();
    writeFileSync(join(t.cacheDir, file as string), '{"format":1,"tools":[{"name":');
    {
      await using bridge = await startBridge({ servers: { s: t.entry() }, env: t.env });
      expect(bridge.server("s")?.state).toBe("connected");
    }
    t.closeGate();
    await using bridge = await startBridge({ servers: { s: t.entry() }, env: t.env });
    expect(bridge.server("s")).toMatchObject({ state: "connecting", catalog: "cache" });
    t.openGate();
  });

  it("opting out, globally or per server, neither reads nor writes the cache", async () => {
    const t = setup("alpha");
    {
      await using bridge = await startBridge({
        servers: { s: t.entry({ catalogCache: false }) },
        env: t.env,
      });
      expect(bridge.server("s")?.state).toBe("connected");
      await using off = await startBridge({ servers: { s: t.entry() }, env: t.env, catalogCache: false });
      expect(off.server("s")?.state).toBe("connected");
      await using setting = await startBridge({
        servers: { s: t.entry() },
        env: t.env,
        settings: { catalogCache: false },
      });
      expect(setting.server("s")?.state).toBe("connected");
      await using switched = await startBridge({
        servers: { s: t.entry() },
        env: { ...t.env, MCP_BRIDGE_CATALOG_CACHE: "0" },
      });
      expect(switched.server("s")?.state).toBe("connected");
    }
    expect(t.cacheFiles()).toHaveLength(0);

    await warm(t, { s: t.entry() });
    t.closeGate();
    // A warm cache, but this bridge does not use it: start waits until the server answers.
    const starting = startBridge({ servers: { s: t.entry() }, env: t.env, catalogCache: false });
    t.openGate();
    await using bridge = await starting;
    expect(bridge.server("s")?.state).toBe("connected");
  });

  it("honours the ttlMs of a 2026-07-28 tools/list: a list that may be kept is listed from the cache, ttlMs 0 never", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "mcp-bridge-catalog-ttl-"));
    dirs.push(cacheDir);
    const env = { MCP_BRIDGE_CACHE_DIR: cacheDir };
    for (const [ttl, fromCache] of [
      ["60000", true],
      ["0", false],
    ] as const) {
      await using server = await startHttpFixture("catalog", ["--modern", "--tools-ttl", ttl]);
      const servers = { m: { type: "http", url: server.url } };
      {
        await using first = await startBridge({ servers, env });
        expect(first.server("m")).toMatchObject({ state: "connected", protocolVersion: "2026-07-28" });
      }
      await using second = await startBridge({ servers, env });
      expect(second.tools().map((tool) => tool.name)).toEqual(["mcp_m_echo"]);
      expect(second.server("m")?.catalog).toBe(fromCache ? "cache" : undefined);
      expect(second.server("m")?.state).toBe(fromCache ? "connecting" : "connected");
    }
  });
});
