import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Bridge, McpBridge, type ServerStatus, startBridge } from "../../src/index.js";
import { silentLogger } from "../../src/util/logger.js";
import { alive, startHttpFixture, stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { startLegacySseServer } from "../helpers/http-servers.js";
import { until } from "../helpers/wait.js";

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function pidOf(status: ServerStatus | undefined): number {
  expect(status?.pid).toBeTypeOf("number");
  return status?.pid as number;
}

describe("stdio servers", () => {
  it("connects, reports status and calls tools", async () => {
    await using bridge = await McpBridge.start({ servers: { calc: stdioEntry("normal") } });
    const status = bridge.server("calc");
    expect(status).toMatchObject({
      name: "calc",
      transport: "stdio",
      state: "connected",
      toolCount: 6,
      restarts: 0,
      serverInfo: { name: "normal", version: "1.0.0" },
    });
    expect(status?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(status?.connectMs).toBeGreaterThan(0);
    expect(bridge.tools().map((tool) => tool.name)).toContain("mcp_calc_add");
    expect((await bridge.call("mcp_calc_add", { a: 2, b: 3 })).text).toBe("5");
    expect((await bridge.call("calc/echo", { text: "hi" })).text).toBe("hi");
    expect((await bridge.tool("mcp_calc_greet")?.call({ name: "Ada" }))?.text).toBe("Hello, Ada!");
  });

  it("gives a stdio server only a safe base environment plus its configured env", async () => {
    await using bridge = await startBridge({
      servers: { calc: stdioEntry("normal", { env: { MY_SETTING: "on" } }) },
      env: { ...process.env, HOST_SECRET_API_KEY: "should-not-leak" },
    });
    const names = JSON.parse((await bridge.call("calc/env")).text) as string[];
    expect(names).toContain("MY_SETTING");
    expect(names).toContain("PATH");
    expect(names).not.toContain("HOST_SECRET_API_KEY");
  });

  it("works with a real server from npm (server-everything, stdio)", async () => {
    await using bridge = await startBridge({
      servers: {
        everything: {
          command: process.execPath,
          args: [
            join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
            "stdio",
          ],
        },
      },
    });
    expect(bridge.server("everything")?.state).toBe("connected");
    expect(bridge.tools().length).toBeGreaterThan(5);
    const echo = await bridge.call("everything/echo", { message: "from mcp-bridge" });
    expect(echo.text).toContain("from mcp-bridge");
    const image = await bridge.call("everything/get-tiny-image", {});
    expect(image.text).toMatch(/\[image: image\/png, [\d.]+ (B|KB)\]/);
  });

  it("skips noise on stdout and loses no answer", async () => {
    await using bridge = await startBridge({ servers: { noisy: stdioEntry("garbage-stdout") } });
    expect(bridge.server("noisy")?.state).toBe("connected");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => bridge.call("noisy/add", { a: i, b: 1 })),
    );
    expect(results.map((r) => r.text)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
  });

  it("reports a server that exits at start, quoting its stderr", async () => {
    await using bridge = await startBridge({ servers: { dead: stdioEntry("exits-at-start") } });
    const status = bridge.server("dead");
    expect(status?.state).toBe("failed");
    expect(status?.lastError?.code).toBe("SERVER_START_FAILED");
    expect(status?.lastError?.message).toContain('Server "dead" exited with code 1');
    expect(status?.lastError?.message).toContain("fatal: cannot start (fixture)");
  });

  it("quotes the stderr line that explains a start failure, not only Node's trailer", async () => {
    await using bridge = await startBridge({ servers: { broken: stdioEntry("missing-module") } });
    const message = bridge.server("broken")?.lastError?.message ?? "";
    expect(message).toContain('Server "broken" exited with code 1');
    expect(message).toMatch(
      /Last stderr: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module .*this-module-does-not-exist/,
    );
    expect(message).toMatch(/Node\.js v\d+/);
  });

  it("says a refused port is a refused connection", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await using bridge = await startBridge({
      servers: { down: { url: `http://127.0.0.1:${port}/mcp`, restart: { enabled: false } } },
    });
    const message = bridge.server("down")?.lastError?.message ?? "";
    expect(message).toContain(`Server "down" at http://127.0.0.1:${port}/mcp could not be connected`);
    expect(message).toContain("connection refused");
    expect(message).not.toContain("fetch failed");
  });

  it("reports a command that does not exist", async () => {
    await using bridge = await startBridge({
      servers: { ghost: { command: "mcp-bridge-no-such-command-xyz" } },
    });
    expect(bridge.server("ghost")?.lastError?.message).toMatch(
      /cannot run command "mcp-bridge-no-such-command-xyz" \(ENOENT\)/,
    );
  });

  it("honours the startup timeout and kills a server that never answers, even one ignoring SIGTERM", async () => {
    await using bridge = await startBridge({
      servers: { hung: stdioEntry("never-answers", { startupTimeout: "400ms" }) },
    });
    const status = bridge.server("hung");
    expect(status?.state).toBe("failed");
    expect(status?.lastError?.code).toBe("SERVER_START_TIMEOUT");
    const pid = Number(/pid (\d+)/.exec(status?.stderrTail.join("\n") ?? "")?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(await waitForExit([pid])).toEqual([]);
  });

  it("starts servers in parallel: every start window overlaps", async () => {
    const servers = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [`slow${i}`, stdioEntry("slow-start", {}, ["--delay", "1500"])]),
    );
    await using bridge = await startBridge({ servers });
    const windows = bridge.servers().map((status) => {
      expect(status.state).toBe("connected");
      const log = status.stderrTail.join("\n");
      return { started: Number(/started (\d+)/.exec(log)?.[1]), ready: Number(/ready (\d+)/.exec(log)?.[1]) };
    });
    // Sequential startup would begin each server after the previous one was ready.
    const lastStart = Math.max(...windows.map((w) => w.started));
    const firstReady = Math.min(...windows.map((w) => w.ready));
    expect(lastStart).toBeLessThan(firstReady);
  });

  it("fails in-flight calls at once when the server crashes, restarts it, and the next call succeeds", async () => {
    await using bridge = await startBridge({
      servers: { fragile: stdioEntry("crash-on-tool", { restart: { initialDelay: "50ms" } }) },
    });
    const firstPid = pidOf(bridge.server("fragile"));
    const slow = bridge.call("fragile/sleep", { ms: 20_000 }, { timeout: 30_000 });
    const crash = bridge.call("fragile/crash", {}, { timeout: 30_000 });
    await expect(crash).rejects.toMatchObject({ code: "SERVER_CRASHED", server: "fragile", tool: "crash" });
    await expect(slow).rejects.toMatchObject({ code: "SERVER_CRASHED", tool: "sleep" });
    // A call made while reconnecting waits for the new process.
    expect((await bridge.call("fragile/add", { a: 1, b: 1 })).text).toBe("2");
    const status = bridge.server("fragile");
    expect(status?.state).toBe("connected");
    expect(status?.restarts).toBe(1);
    expect(pidOf(status)).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
  });

  it("refreshes the registry on tools/list_changed without a restart", async () => {
    await using bridge = await startBridge({ servers: { dyn: stdioEntry("list-changed") } });
    const changes: string[][] = [];
    bridge.on("toolsChanged", (event) => changes.push(event.tools.map((tool) => tool.tool)));
    await bridge.call("dyn/add_tool", { name: "fresh" });
    await until(() => bridge.tool("mcp_dyn_fresh") !== undefined);
    expect((await bridge.call("mcp_dyn_fresh")).text).toBe("I am fresh");
    await bridge.call("dyn/remove_tool", { name: "fresh" });
    await until(() => bridge.tool("mcp_dyn_fresh") === undefined);
    expect(changes.some((tools) => tools.includes("fresh"))).toBe(true);
    expect(bridge.server("dyn")?.restarts).toBe(0);
  });

  it("reload() keeps unchanged servers (same pid), restarts changed ones, adds and removes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-reload-"));
    tempDirs.push(dir);
    const file = join(dir, "mcp.json");
    const write = (servers: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ mcpServers: servers }));
    write({ keep: stdioEntry("normal"), change: stdioEntry("normal"), drop: stdioEntry("normal") });
    await using bridge = await startBridge({ config: file, env: {} });
    const keepPid = pidOf(bridge.server("keep"));
    const changePid = pidOf(bridge.server("change"));
    const dropPid = pidOf(bridge.server("drop"));
    write({
      keep: stdioEntry("normal"),
      change: stdioEntry("normal", { env: { CHANGED: "1" } }),
      added: stdioEntry("normal"),
    });
    const summary = await bridge.reload();
    expect(summary).toEqual({
      added: ["added"],
      removed: ["drop"],
      restarted: ["change"],
      unchanged: ["keep"],
    });
    expect(pidOf(bridge.server("keep"))).toBe(keepPid);
    expect(pidOf(bridge.server("change"))).not.toBe(changePid);
    expect(bridge.server("drop")).toBeUndefined();
    expect(await waitForExit([changePid, dropPid])).toEqual([]);
    expect((await bridge.call("added/add", { a: 1, b: 2 })).text).toBe("3");
  });

  it("leaves no process behind after close(), children of the server included", async () => {
    const bridge: Bridge = await startBridge({ servers: { parent: stdioEntry("spawns-child") } });
    const { pid, childPid } = JSON.parse((await bridge.call("parent/pids")).text) as {
      pid: number;
      childPid: number;
    };
    expect(alive(pid) && alive(childPid)).toBe(true);
    await bridge.close();
    expect(await waitForExit([pid, childPid])).toEqual([]);
  });

  it("connects a lazy server on first use and closes an idle one until the next call", async () => {
    await using bridge = await startBridge({
      servers: {
        lazy: stdioEntry("normal", { lazy: true }),
        sleepy: stdioEntry("normal", { idleTimeout: "600ms" }),
      },
    });
    // Read before anything else: the idle timer runs from the moment the server connected.
    const firstPid = pidOf(bridge.server("sleepy"));
    expect(bridge.server("lazy")?.state).toBe("idle");
    expect(bridge.tools({ server: "lazy" })).toEqual([]);
    expect((await bridge.call("lazy/add", { a: 1, b: 2 })).text).toBe("3");
    expect(bridge.server("lazy")?.state).toBe("connected");
    await until(() => bridge.server("sleepy")?.state === "idle");
    expect(await waitForExit([firstPid])).toEqual([]);
    expect(bridge.tool("mcp_sleepy_add")).toBeDefined();
    expect((await bridge.call("mcp_sleepy_add", { a: 2, b: 2 })).text).toBe("4");
    expect(bridge.server("sleepy")?.state).toBe("connected");
  });
});

describe("remote servers", () => {
  it("talks Streamable HTTP, stateful and stateless", async () => {
    await using stateful = await startHttpFixture("normal");
    await using stateless = await startHttpFixture("normal", ["--stateless"]);
    await using bridge = await startBridge({
      servers: { a: { url: stateful.url }, b: { type: "http", url: stateless.url } },
    });
    expect(bridge.servers().map((s) => s.state)).toEqual(["connected", "connected"]);
    expect((await bridge.call("a/add", { a: 1, b: 2 })).text).toBe("3");
    expect((await bridge.call("b/add", { a: 2, b: 2 })).text).toBe("4");
  });

  it("negotiates the 2026-07-28 stateless protocol (auto and pinned) and needs no session", async () => {
    await using modern = await startHttpFixture("normal", ["--modern"]);
    await using bridge = await startBridge({
      servers: {
        auto: { type: "http", url: modern.url },
        pinned: { type: "http", url: modern.url, negotiation: "2026-07-28" },
      },
    });
    expect(bridge.server("auto")?.protocolVersion).toBe("2026-07-28");
    expect(bridge.server("pinned")?.protocolVersion).toBe("2026-07-28");
    expect((await bridge.call("auto/add", { a: 1, b: 2 })).text).toBe("3");
    expect((await bridge.call("pinned/echo", { text: "x" })).text).toBe("x");
  });

  it("connects a 2026-07-28 server that never acknowledges subscriptions/listen, and says so", async () => {
    // SDK 1.x servers answer server/discover but hold a listen stream open without a word: waiting for
    // its acknowledgement used to take the whole startup time and fail the server.
    await using muted = await startHttpFixture("normal", ["--modern", "--mute-listen"]);
    const warnings: string[] = [];
    await using bridge = await startBridge({
      servers: { muted: { type: "http", url: muted.url, startupTimeout: "20s" } },
      logger: { ...silentLogger, warn: (message) => warnings.push(message) },
    });
    expect(bridge.server("muted")).toMatchObject({ state: "connected", protocolVersion: "2026-07-28" });
    expect((await bridge.call("muted/add", { a: 1, b: 2 })).text).toBe("3");
    expect(warnings).toEqual([expect.stringMatching(/"muted" did not open a list-changes stream/)]);
  });

  it("a server that answers 2026-07-28 calls in the 2025 shape is reconnected with the 2025-11-25 handshake", async () => {
    await using half = await startHttpFixture("normal", ["--modern", "--drop-result-type"]);
    await using bridge = await startBridge({ servers: { half: { type: "http", url: half.url } } });
    expect(bridge.server("half")?.protocolVersion).toBe("2026-07-28");
    // The call that finds it out fails with what happened and what to do; the next ones work.
    const first = await bridge.call("half/add", { a: 1, b: 2 }, { onError: "result" });
    expect(first.isError).toBe(true);
    expect(first.text).toMatch(/without the fields that protocol requires.*2025-11-25 handshake/);
    expect((await bridge.call("half/add", { a: 2, b: 3 }, { timeout: 10_000 })).text).toBe("5");
    expect(bridge.server("half")?.protocolVersion).toBe("2025-11-25");
  });

  it("falls back to legacy SSE for a url with no declared transport, and uses SSE when declared", async () => {
    await using legacy = await startLegacySseServer();
    const base = legacy.url.replace(/\/sse$/, "");
    await using bridge = await startBridge({
      servers: {
        inferred: { url: `${base}/sse` },
        declared: { type: "sse", url: legacy.url },
        fallback: { url: `${legacy.url}?x=1` },
      },
    });
    for (const name of ["inferred", "declared", "fallback"]) {
      expect(bridge.server(name)?.state, name).toBe("connected");
      expect((await bridge.call(`${name}/add`, { a: 20, b: 22 })).text).toBe("42");
    }
    expect(bridge.server("declared")?.serverInfo?.name).toBe("legacy-sse");
  });

  it("reconnects when an HTTP server restarts on the same port", async () => {
    const first = await startHttpFixture("normal");
    const port = new URL(first.url).port;
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: first.url, restart: { initialDelay: "50ms" } } },
    });
    expect((await bridge.call("remote/add", { a: 1, b: 1 })).text).toBe("2");
    await first.close();
    await using second = await startHttpFixture("normal", ["--port", port]);
    expect(second.url).toBe(first.url);
    expect((await bridge.call("remote/add", { a: 2, b: 3 }, { timeout: 10_000 })).text).toBe("5");
  });
});
