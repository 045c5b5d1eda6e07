import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ServerStatus, startBridge } from "../../src/index.js";
import { startHttpFixture, stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("lifecycle", () => {
  it("wait: false resolves at once; tools arrive with toolsChanged; ready() waits for the rest", async () => {
    const events: string[] = [];
    const bridge = await startBridge({
      servers: { slow: stdioEntry("slow-start", {}, ["--delay", "300"]) },
      wait: false,
    });
    bridge.on("toolsChanged", (event) => events.push(`${event.server}:${event.tools.length}`));
    expect(bridge.server("slow")?.state).toBe("connecting");
    await bridge.ready();
    expect(bridge.server("slow")?.state).toBe("connected");
    expect(events).toEqual(["slow:1"]);
    await bridge.close();
  });

  it("a required server that cannot start makes start() fail, and nothing is left running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-required-"));
    temps.push(dir);
    const pidsFile = join(dir, "pids.json");
    const error = await startBridge({
      servers: {
        fine: stdioEntry("spawns-child", { env: { PIDS_FILE: pidsFile } }),
        essential: { ...stdioEntry("exits-at-start"), required: true },
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SERVER_REQUIRED" });
    expect((error as Error).message).toContain('"essential"');
    const { readFileSync } = await import("node:fs");
    const { pid, childPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number; childPid: number };
    expect(await waitForExit([pid, childPid])).toEqual([]);
  });

  it("maxConcurrency queues the excess calls", async () => {
    await using bridge = await startBridge({
      servers: { one: inProcessEntry("slow-tool", { maxConcurrency: 2 }) },
    });
    const results = await Promise.all(Array.from({ length: 6 }, () => bridge.call("one/sleep", { ms: 100 })));
    expect(results.every((r) => r.text === "slept")).toBe(true);
    expect((await bridge.call("one/max_active")).text).toBe("2");
  });

  it("a failed health-check ping triggers the reconnect path", async () => {
    const first = await startHttpFixture("normal");
    const port = new URL(first.url).port;
    const states: ServerStatus["state"][] = [];
    await using bridge = await startBridge({
      servers: {
        remote: {
          type: "http",
          url: first.url,
          healthCheckInterval: "150ms",
          restart: { initialDelay: "50ms", maxAttempts: 0 },
        },
      },
    });
    bridge.on("serverStateChanged", (status) => states.push(status.state));
    await first.close();
    await until(() => bridge.server("remote")?.state === "reconnecting");
    await using _second = await startHttpFixture("normal", ["--port", port]);
    await until(() => bridge.server("remote")?.state === "connected");
    expect(bridge.server("remote")?.restarts).toBeGreaterThanOrEqual(1);
    expect(states).toContain("reconnecting");
    expect((await bridge.call("remote/add", { a: 1, b: 1 })).text).toBe("2");
  });

  it("autoReload watches the config file and applies changes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-autoreload-"));
    temps.push(dir);
    const file = join(dir, "mcp.json");
    const write = (servers: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ settings: { autoReload: true }, mcpServers: servers }));
    write({ a: stdioEntry("normal") });
    await using bridge = await startBridge({ config: file, env: {} });
    write({ a: stdioEntry("normal"), b: stdioEntry("normal") });
    await until(() => bridge.server("b")?.state === "connected");
    expect(bridge.tool("mcp_b_add")).toBeDefined();
  });

  it("the global enabled = false switch turns every server off", async () => {
    await using bridge = await startBridge({
      servers: { a: inProcessEntry("normal") },
      settings: { enabled: false },
    });
    expect(bridge.server("a")?.state).toBe("disabled");
    await expect(bridge.call("a/add", { a: 1, b: 1 })).rejects.toMatchObject({ code: "SERVER_UNAVAILABLE" });
  });
});
