import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RestartGates } from "../../src/bridge/servers/restart-gates.js";
import { type ServerStatus, startBridge, type ToolsChangedEvent } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { running } from "../helpers/process.js";
import { tempDirs, until } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-restart-");
/** Every pid a test saw, killed afterwards whatever the outcome. */
const seen: number[] = [];
afterEach(() => {
  for (const pid of seen.splice(0).filter(running)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

function config(servers: Record<string, unknown>, settings: Record<string, unknown> = {}): string {
  const file = join(tempDir(), "mcp.json");
  writeFileSync(file, JSON.stringify({ settings, mcpServers: servers }));
  return file;
}

type Pids = { pid: number; childPid: number };

async function pidsOf(bridge: { call(name: string): Promise<{ text: string }> }): Promise<Pids> {
  const pids = JSON.parse((await bridge.call("mcp_a_pids")).text) as Pids;
  seen.push(pids.pid, pids.childPid);
  return pids;
}

describe("bridge.restart(server)", () => {
  it("replaces the process tree, keeps the tools callable and emits state and tools events", async () => {
    const file = config({ a: stdioEntry("spawns-child"), b: stdioEntry("normal") });
    await using bridge = await startBridge({ config: file, env: {} });
    const before = await pidsOf(bridge);
    const otherPid = bridge.server("b")?.pid;
    const states: string[] = [];
    const tools: ToolsChangedEvent[] = [];
    bridge.on("serverStateChanged", (status) => {
      if (status.name === "a") states.push(status.state);
    });
    bridge.on("toolsChanged", (event) => tools.push(event));

    const status: ServerStatus = await bridge.restart("a");

    expect(status.state).toBe("connected");
    expect(status.pid).not.toBe(before.pid);
    expect(bridge.server("a")?.pid).toBe(status.pid);
    // The old server and its own child are gone by the time restart() resolves.
    expect([before.pid, before.childPid].filter(running)).toEqual([]);
    const after = await pidsOf(bridge);
    expect(after.pid).toBe(status.pid);
    expect(states).toEqual(["connecting", "connected"]);
    expect(
      tools
        .filter((event) => event.server === "a")
        .at(-1)
        ?.tools.map((t) => t.name),
    ).toContain("mcp_a_pids");
    // Other servers are untouched.
    expect(bridge.server("b")?.pid).toBe(otherPid);
    expect(tools.some((event) => event.server === "b")).toBe(false);
  });

  it("a call in flight on the server fails at once with a clear error; a call made meanwhile waits", async () => {
    const file = config({ slow: stdioEntry("slow-tool") });
    await using bridge = await startBridge({ config: file, env: {} });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    // A minute of work: the restart must cut it short, not wait for it.
    const inFlight = bridge
      .call(
        "mcp_slow_progress",
        { steps: 600, intervalMs: 100 },
        { timeout: 120_000, onProgress: () => started() },
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await running;
    const restarting = bridge.restart("slow");
    const meanwhile = bridge.call("mcp_slow_cancelled", {}).then(
      (result) => result.text,
      (error: unknown) => error,
    );
    const status = await restarting;
    expect(await inFlight).toMatchObject({
      code: "SERVER_CRASHED",
      server: "slow",
      tool: "progress",
      message: expect.stringMatching(/"slow" was restarted while tool "progress" was running.*Retry/),
    });
    // Sent to the new server, which has seen no cancellation.
    expect(await meanwhile).toBe("0");
    expect(bridge.server("slow")?.pid).toBe(status.pid);
  });

  it("starts with a fresh restart budget: a server whose restarts ran out is connected again", async () => {
    const file = config({
      a: stdioEntry("spawns-child", { restart: { maxAttempts: 1, initialDelay: "10ms", maxDelay: "10ms" } }),
    });
    await using bridge = await startBridge({ config: file, env: {} });
    // Two crashes within the stable period use up the one attempt: the server ends failed.
    process.kill((await pidsOf(bridge)).pid, "SIGKILL");
    await until(() => bridge.server("a")?.state === "connected" && bridge.server("a")?.restarts === 1);
    process.kill((await pidsOf(bridge)).pid, "SIGKILL");
    await until(() => bridge.server("a")?.state === "failed");
    const status = await bridge.restart("a");
    expect(status).toMatchObject({ state: "connected", restarts: 0 });
    expect((await pidsOf(bridge)).pid).toBe(status.pid);
  });

  it("a server that cannot start rejects with the typed start error and is left failed", async () => {
    const file = config({ bad: stdioEntry("exits-at-start", { restart: false }) });
    await using bridge = await startBridge({ config: file, env: {} });
    await expect(bridge.restart("bad")).rejects.toMatchObject({
      code: "SERVER_START_FAILED",
      server: "bad",
    });
    expect(bridge.server("bad")?.state).toBe("failed");
  });

  it("two restarts of one server at once share one new process", async () => {
    const file = config({ a: stdioEntry("spawns-child") });
    await using bridge = await startBridge({ config: file, env: {} });
    const before = await pidsOf(bridge);
    const [first, second] = await Promise.all([bridge.restart("a"), bridge.restart("a")]);
    expect(first.pid).toBe(second.pid);
    expect(first.pid).not.toBe(before.pid);
    expect(bridge.server("a")).toMatchObject({ state: "connected", pid: first.pid });
  });

  it("an unknown name says the closest one; a disabled server says it is disabled", async () => {
    const file = config({ alpha: stdioEntry("normal"), off: stdioEntry("normal", { disabled: true }) });
    await using bridge = await startBridge({ config: file, env: {} });
    await expect(bridge.restart("alpa")).rejects.toMatchObject({
      code: "SERVER_NOT_FOUND",
      message: expect.stringContaining('did you mean "alpha"?'),
    });
    await expect(bridge.restart("off")).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      message: expect.stringContaining("disabled"),
    });
    await bridge.close();
    await expect(bridge.restart("alpha")).rejects.toMatchObject({ code: "BRIDGE_CLOSED" });
  });
});

describe("RestartGates", () => {
  it("a call passes when the gate opens, when its time is up, or when its signal aborts", async () => {
    const gates = new RestartGates();
    expect(gates.pass("a", 60_000)).toBeUndefined(); // no gate: nothing to wait for
    const open = gates.close("a");
    let passed = false;
    const waiting = gates.pass("a", 60_000)?.then(() => {
      passed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(passed).toBe(false);
    open();
    await waiting;
    const again = gates.close("a");
    await gates.pass("a", 1); // bounded by its time
    const controller = new AbortController();
    const aborted = gates.pass("a", 60_000, controller.signal);
    controller.abort();
    await aborted;
    again();
    again(); // harmless twice
    await gates.pass("a", 60_000);
  });
});
