import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Bridge, startBridge, type ToolsChangedEvent } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { pidsIn, running } from "../helpers/process.js";
import { tempDirs, until } from "../helpers/wait.js";

const makeDir = tempDirs("mcp-bridge-reload-");
const usedDirs: string[] = [];
/** A temporary directory whose servers' pids are killed after the test, whatever its outcome. */
function tempDir(): string {
  const dir = makeDir();
  usedDirs.push(dir);
  return dir;
}

/** Every pid any generation of a spawns-child server wrote into `dir`. */
function allPids(dir: string): number[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith("pids-"))
    .flatMap((name) => pidsIn(join(dir, name)));
}

afterEach(() => {
  // A failing test must not leave its servers behind for the next one.
  for (const pid of usedDirs.splice(0).flatMap(allPids).filter(running)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

/** Pids still running once close() resolved, and again after the event loop had time to start more. */
async function survivors(dir: string): Promise<number[]> {
  const atClose = allPids(dir).filter(running);
  // Work a reload left behind (a spawn after close) shows up only later: look again after a while.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const later = allPids(dir).filter(running);
  return [...new Set([...atClose, ...later])];
}

function configFile(dir: string) {
  const file = join(dir, "mcp.json");
  let generation = 0;
  const write = (extra: Record<string, unknown> = {}, args: string[] = [], settings = {}) => {
    generation++;
    const env = { PIDS_FILE: join(dir, `pids-${generation}.json`) };
    writeFileSync(
      file,
      JSON.stringify({ settings, mcpServers: { a: stdioEntry("spawns-child", { env, ...extra }, args) } }),
    );
  };
  return { file, write };
}

describe("reload and close", () => {
  it("concurrent reload() calls leave exactly one server running, and none after close()", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write();
    const bridge = await startBridge({ config: file, env: {} });
    write();
    const first = bridge.reload();
    write();
    const second = bridge.reload();
    await Promise.all([first, second]);
    expect(bridge.server("a")?.state).toBe("connected");
    // The replaced servers are stopped; one server and its child remain.
    await until(() => allPids(dir).filter(running).length === 2);
    const current = bridge.server("a")?.pid;
    expect(allPids(dir).filter(running)).toContain(current);
    await bridge.close();
    expect(await survivors(dir)).toEqual([]);
  });

  it("reload() then close() at once leaves no server running", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write();
    const bridge = await startBridge({ config: file, env: {} });
    write();
    const reloading = bridge.reload().catch((error: unknown) => error);
    await bridge.close();
    expect(await survivors(dir)).toEqual([]);
    const outcome = await reloading;
    if (outcome instanceof Error) expect(outcome).toMatchObject({ code: "BRIDGE_CLOSED" });
  });

  it("close() during the handshake resolves only once the server processes are gone", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write({}, ["--delay", "1500"]);
    const bridge = await startBridge({ config: file, env: {}, wait: false });
    await until(() => allPids(dir).length === 2);
    expect(bridge.server("a")?.state).toBe("connecting");
    await bridge.close();
    expect(await survivors(dir)).toEqual([]);
  });

  it("autoReload on rapid saves leaves one server, and none after close()", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write({}, [], { autoReload: true });
    const bridge = await startBridge({ config: file, env: {} });
    for (let index = 0; index < 4; index++) {
      write({}, [], { autoReload: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await bridge.close();
    expect(await survivors(dir)).toEqual([]);
  });

  it("a call made while its server is being replaced waits for the new connection", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write();
    await using bridge = await startBridge({ config: file, env: {} });
    // The new generation answers the handshake late, so the call lands in the gap.
    write({}, ["--delay", "400"]);
    const reloading = bridge.reload();
    await until(() => allPids(dir).length === 4);
    const during = bridge.call("mcp_a_pids", {}, { timeout: 10_000 });
    await reloading;
    const pids = JSON.parse((await during).text) as { pid: number };
    expect(pids.pid).toBe(bridge.server("a")?.pid);
  });

  it("a call waiting for its reconnecting server is sent on the connection that replaces it", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    // The crashed server would come back only after 20 s; the reload's new connection must serve the call.
    const restart = { initialDelay: "20s", maxDelay: "20s" };
    write({ restart });
    await using bridge = await startBridge({ config: file, env: {} });
    const [pid] = pidsIn(join(dir, "pids-1.json"));
    process.kill(pid as number, "SIGKILL");
    await until(() => bridge.server("a")?.state === "reconnecting");
    const waiting = bridge.call("mcp_a_pids", {}, { timeout: 8000 });
    write({ restart });
    await bridge.reload();
    const pids = JSON.parse((await waiting).text) as { pid: number };
    expect(pids.pid).toBe(bridge.server("a")?.pid);
    expect(pids.pid).not.toBe(pid);
  });

  it("a call to a tool of a server that a reload under way adds waits for it", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const write = (servers: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    write({ a: stdioEntry("normal") });
    await using bridge = await startBridge({ config: file, env: {} });
    write({ a: stdioEntry("normal"), b: stdioEntry("slow-start", {}, ["--delay", "300"]) });
    const reloading = bridge.reload();
    const result = await bridge.call("mcp_b_add", { a: 2, b: 2 }, { timeout: 10_000 });
    expect(result.text).toBe("4");
    expect((await reloading).added).toEqual(["b"]);
  });

  it("a call in flight when its server is replaced finishes on the old connection", async () => {
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write();
    await using bridge = await startBridge({ config: file, env: {} });
    const inFlight = bridge.call("mcp_a_sleep", { ms: 500 });
    write();
    await bridge.reload();
    expect((await inFlight).text).toBe("slept");
  });
});

describe("reload and tools", () => {
  it("removing a server emits toolsChanged with the removed tool names", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const write = (servers: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    write({ a: stdioEntry("normal"), b: stdioEntry("normal") });
    await using bridge: Bridge = await startBridge({ config: file, env: {} });
    const events: ToolsChangedEvent[] = [];
    bridge.on("toolsChanged", (event) => events.push(event));
    const before = bridge.tools({ server: "b" }).map((tool) => tool.name);
    expect(before.length).toBeGreaterThan(0);
    write({ a: stdioEntry("normal") });
    const summary = await bridge.reload();
    expect(summary.removed).toEqual(["b"]);
    expect(events).toHaveLength(1);
    expect(events[0]?.server).toBe("b");
    expect(events[0]?.tools).toEqual([]);
    expect([...(events[0]?.removed ?? [])].sort()).toEqual([...before].sort());
    expect(bridge.tool("mcp_b_add")).toBeUndefined();
  });

  it("changing only a server's tool filter keeps its process and updates its tools", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const write = (tools: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ mcpServers: { a: stdioEntry("normal", { tools }) } }));
    write({ include: ["add"] });
    await using bridge = await startBridge({ config: file, env: {} });
    const pid = bridge.server("a")?.pid;
    expect(pid).toBeDefined();
    expect(bridge.tools().map((tool) => tool.name)).toEqual(["mcp_a_add"]);
    const events: ToolsChangedEvent[] = [];
    bridge.on("toolsChanged", (event) => events.push(event));
    write({ exclude: ["add"] });
    const summary = await bridge.reload();
    expect(summary.restarted).toEqual([]);
    expect(summary.unchanged).toEqual(["a"]);
    expect(bridge.server("a")?.pid).toBe(pid);
    expect(bridge.tool("mcp_a_add")).toBeUndefined();
    expect(bridge.tools().length).toBeGreaterThan(0);
    expect(events.map((event) => event.server)).toEqual(["a"]);
    expect(events[0]?.removed).toEqual(["mcp_a_add"]);
  });

  it("a server replaced by one that fails to start loses the tools of its predecessor", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const write = (entry: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ mcpServers: { a: entry } }));
    write(stdioEntry("normal"));
    await using bridge = await startBridge({ config: file, env: {} });
    expect(bridge.tool("mcp_a_add")).toBeDefined();
    const events: ToolsChangedEvent[] = [];
    bridge.on("toolsChanged", (event) => events.push(event));
    write(stdioEntry("exits-at-start"));
    await bridge.reload();
    expect(bridge.server("a")?.state).toBe("failed");
    expect(bridge.tools()).toEqual([]);
    expect(events.at(-1)?.tools).toEqual([]);
    expect(events.at(-1)?.removed).toContain("mcp_a_add");
  });

  it("a server replaced by a disabled one loses its tools at once", async () => {
    const dir = tempDir();
    const file = join(dir, "mcp.json");
    const write = (entry: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ mcpServers: { a: entry } }));
    write(stdioEntry("normal"));
    await using bridge = await startBridge({ config: file, env: {} });
    write({ ...stdioEntry("normal"), enabled: false });
    await bridge.reload();
    expect(bridge.server("a")?.state).toBe("disabled");
    expect(bridge.tools()).toEqual([]);
  });
});

describe("host exit", () => {
  it("a host that reloads twice and closes without waiting for the reloads exits on its own", async () => {
    const { spawn } = await import("node:child_process");
    const { resolve } = await import("node:path");
    const dir = tempDir();
    const { file, write } = configFile(dir);
    write();
    const host = spawn(process.execPath, [resolve("dist/test/fixtures/hosts/reload-host.js"), file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    host.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const code = await new Promise<number | string | null>((done) => {
      const timer = setTimeout(() => {
        host.kill("SIGKILL");
        done("did not exit");
        // Generous: a loaded machine (CI at load 8 on 2 cores) takes 3-5 s for this host's whole life.
      }, 60_000);
      host.on("exit", (exitCode) => {
        clearTimeout(timer);
        done(exitCode);
      });
    });
    expect(stdout).toContain("CLOSED");
    expect(code).toBe(0);
    expect(await survivors(dir)).toEqual([]);
  }, 90_000);
});
