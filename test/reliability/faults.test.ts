import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig, McpBridgeError, startBridge } from "../../src/index.js";
import { alive, startHttpFixture, stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { cliEnv, spawnCli } from "../helpers/cli.js";
import { listen } from "../helpers/http-servers.js";
import { capturingLogger, until } from "../helpers/wait.js";

const temps: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-faults-"));
  temps.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("a tool that hangs", () => {
  it("times out alone; the server is told to cancel; other calls on the same server complete", async () => {
    await using bridge = await startBridge({ servers: { slow: stdioEntry("slow-tool") } });
    const hung = bridge.call("slow/sleep", { ms: 60_000 }, { timeout: 500 }).catch((e: unknown) => e);
    const others = await Promise.all(
      Array.from({ length: 10 }, (_, i) => bridge.call("slow/sleep", { ms: 10 + i })),
    );
    expect(others.every((r) => r.text === "slept")).toBe(true);
    expect(await hung).toMatchObject({ code: "TOOL_TIMEOUT" });
    await expect
      .poll(async () => Number((await bridge.call("slow/cancelled")).text), { timeout: 3000 })
      .toBe(1);
  });
});

describe("noise on stdout", () => {
  it("is logged once per kind and skipped; no call is lost", async () => {
    const { logger, messages: warnings } = capturingLogger();
    await using bridge = await startBridge({ servers: { noisy: stdioEntry("garbage-stdout") }, logger });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => bridge.call("noisy/add", { a: i, b: i })),
    );
    expect(results.map((r) => r.text)).toEqual(Array.from({ length: 50 }, (_, i) => String(2 * i)));
    const noise = warnings.filter((w) => w.includes("on stdout"));
    expect(noise.filter((w) => w.includes("non-JSON output"))).toHaveLength(1);
    expect(noise.filter((w) => w.includes("not a JSON-RPC message"))).toHaveLength(1);
  });
});

describe("a 50 MB result over stdio", () => {
  it("keeps the connection, returns the result truncated, and never kills other calls", async () => {
    await using bridge = await startBridge({ servers: { big: stdioEntry("content-types") } });
    const before = process.memoryUsage().rss;
    const [huge, ...small] = await Promise.all([
      bridge.call("big/big", { chars: 50_000_000 }, { timeout: 60_000 }),
      ...Array.from({ length: 5 }, () => bridge.call("big/text")),
    ]);
    const grew = process.memoryUsage().rss - before;
    expect(huge?.text.length).toBeLessThanOrEqual(5000);
    expect(huge?.text).toMatch(/truncated/);
    for (const result of small) expect(result.text).toBe("first block\nsecond block");
    expect(bridge.server("big")).toMatchObject({ state: "connected", restarts: 0 });
    expect((await bridge.call("big/text")).isError).toBe(false);
    // Buffering the whole message would cost well over 150 MB (the bytes, the string, the parse).
    expect(grew).toBeLessThan(150 * 1024 * 1024);
  }, 60_000);

  it("with a hard maxMessageBytes, fails only that call with RESULT_TOO_LARGE", async () => {
    await using bridge = await startBridge({
      servers: { big: stdioEntry("content-types", { maxMessageBytes: 1_000_000 }) },
    });
    const [huge, other] = await Promise.all([
      bridge.call("big/big", { chars: 5_000_000 }).catch((e: unknown) => e),
      bridge.call("big/text"),
    ]);
    expect(huge).toBeInstanceOf(McpBridgeError);
    expect(huge).toMatchObject({ code: "RESULT_TOO_LARGE", server: "big", tool: "big" });
    expect(other.text).toBe("first block\nsecond block");
    expect((await bridge.call("big/big", { chars: 10 })).text).toBe("x".repeat(10));
  }, 60_000);
});

describe("1,000 calls in flight while a server is killed twice", () => {
  it("every call resolves exactly once, with a result or a clear error; none hangs", async () => {
    const servers = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [
        `s${i}`,
        stdioEntry("crash-on-tool", { restart: { initialDelay: "20ms" } }),
      ]),
    );
    await using bridge = await startBridge({ servers });
    const settled = new Map<number, string>();
    let doubleSettled = 0;
    const note = (index: number, outcome: string) => {
      if (settled.has(index)) doubleSettled++;
      settled.set(index, outcome);
    };
    const calls = Array.from({ length: 1000 }, (_, index) =>
      bridge.call(`s${index % 5}/sleep`, { ms: 20 + (index % 7) * 30 }, { timeout: 20_000 }).then(
        () => note(index, "ok"),
        (error: unknown) =>
          note(index, error instanceof McpBridgeError ? error.code : `untyped:${String(error)}`),
      ),
    );
    for (let kill = 0; kill < 2; kill++) {
      await until(() => bridge.server("s0")?.state === "connected");
      const pid = bridge.server("s0")?.pid as number;
      await new Promise((r) => setTimeout(r, 40));
      process.kill(pid, "SIGKILL");
      await until(() => bridge.server("s0")?.pid !== pid && bridge.server("s0")?.state === "connected");
    }
    const all = Promise.all(calls);
    const deadline = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 30_000).unref());
    expect(await Promise.race([all.then(() => "done" as const), deadline])).toBe("done");
    const counts: Record<string, number> = {};
    for (const outcome of settled.values()) counts[outcome] = (counts[outcome] ?? 0) + 1;
    expect(settled.size).toBe(1000);
    expect(doubleSettled).toBe(0);
    expect(Object.keys(counts).every((k) => k === "ok" || k === "SERVER_CRASHED")).toBe(true);
    expect(counts.ok).toBeGreaterThanOrEqual(800);
    expect(bridge.server("s0")?.restarts).toBe(2);
    process.stdout.write(`fault 7 outcomes: ${JSON.stringify(counts)}\n`);
  }, 60_000);
});

describe("HTTP servers that fail at runtime", () => {
  /** A pass-through proxy that can answer 500 or drop connections on demand. */
  async function flakyProxy(target: string) {
    let mode: "ok" | "500" | "drop" = "ok";
    const upstream = new URL(target);
    const proxy = await listen((req, res) => {
      if (mode === "500") {
        res.writeHead(500).end("upstream broken (fixture)");
        return;
      }
      if (mode === "drop") {
        req.socket.destroy();
        return;
      }
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", () => res.destroy());
      req.pipe(forward);
    });
    return { proxy, set: (next: typeof mode) => (mode = next) };
  }

  it("a 500 or a dropped connection fails the call clearly, and the server is reconnected", async () => {
    await using target = await startHttpFixture("normal");
    const { proxy, set } = await flakyProxy(target.url);
    await using _proxy = proxy;
    await using bridge = await startBridge({
      servers: { remote: { type: "http", url: proxy.url, restart: { initialDelay: "20ms" } } },
    });
    expect((await bridge.call("remote/add", { a: 1, b: 1 })).text).toBe("2");
    set("500");
    await expect(bridge.call("remote/add", { a: 1, b: 2 })).rejects.toMatchObject({
      code: "SERVER_CRASHED",
      server: "remote",
    });
    set("ok");
    expect((await bridge.call("remote/add", { a: 2, b: 2 }, { timeout: 10_000 })).text).toBe("4");
    set("drop");
    await expect(bridge.call("remote/add", { a: 1, b: 2 })).rejects.toMatchObject({ server: "remote" });
    set("ok");
    expect((await bridge.call("remote/add", { a: 3, b: 3 }, { timeout: 10_000 })).text).toBe("6");
  });

  it("a server that dies mid-call and comes back on the same port", async () => {
    const first = await startHttpFixture("crash-on-tool");
    const port = new URL(first.url).port;
    await using bridge = await startBridge({
      servers: {
        remote: { type: "http", url: first.url, restart: { initialDelay: "20ms", maxAttempts: 0 } },
      },
    });
    await expect(bridge.call("remote/crash")).rejects.toMatchObject({
      code: "SERVER_CRASHED",
      tool: "crash",
    });
    await using second = await startHttpFixture("crash-on-tool", ["--port", port]);
    expect(second.url).toBe(first.url);
    expect((await bridge.call("remote/add", { a: 5, b: 5 }, { timeout: 15_000 })).text).toBe("10");
  });
});

describe("process trees", () => {
  /** Signals `call` of a slow tool on a server that spawned a child; every process must be gone. */
  const signalsTheTree = (signal: NodeJS.Signals, exitCode: number) => async () => {
    const dir = tempDir();
    const pidsFile = join(dir, "pids.json");
    const sleeping = join(dir, "sleeping");
    const config = join(dir, "servers.json");
    const env = { PIDS_FILE: pidsFile, SLEEP_STARTED_FILE: sleeping };
    writeFileSync(config, JSON.stringify({ mcpServers: { tree: stdioEntry("spawns-child", { env }) } }));
    const child = spawnCli(["call", "tree/sleep", "ms=30000", "-c", config], { cwd: dir, env: cliEnv(dir) });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await until(() => existsSync(sleeping));
    const { pid, childPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number; childPid: number };
    child.kill(signal);
    expect(await exited).toBe(exitCode);
    expect(await waitForExit([pid, childPid])).toEqual([]);
  };

  it("SIGTERM to the CLI leaves no process of a server tree", signalsTheTree("SIGTERM", 143));

  it(
    "SIGHUP (the terminal closing) shuts the CLI down as SIGTERM does: exit 129, no process left",
    signalsTheTree("SIGHUP", 129),
  );

  it("a crashed server's orphaned children are reaped too", async () => {
    const dir = tempDir();
    const pidsFile = join(dir, "pids.json");
    await using bridge = await startBridge({
      servers: { tree: stdioEntry("spawns-child", { env: { PIDS_FILE: pidsFile }, restart: false }) },
    });
    const { pid, childPid } = JSON.parse(readFileSync(pidsFile, "utf8")) as { pid: number; childPid: number };
    process.kill(pid, "SIGKILL");
    await until(() => bridge.server("tree")?.state === "failed");
    expect(await waitForExit([pid, childPid])).toEqual([]);
    expect(alive(childPid)).toBe(false);
  });
});

describe("malformed tool lists from a real (broken) server", () => {
  it("skips bad entries with a warning naming server and tool; registers the rest, 5,000 of them", async () => {
    const { logger, messages: warnings } = capturingLogger();
    await using bridge = await startBridge({
      servers: { broken: stdioEntry("malformed-tools" as never, {}, ["--count", "5000"]) },
      logger,
    });
    expect(bridge.server("broken")?.state).toBe("connected");
    expect(bridge.tools()).toHaveLength(5001);
    expect(bridge.tool("mcp_broken_dup")).toBeDefined();
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Server "broken": skipped tool #0: it has no name/),
        expect.stringMatching(/Server "broken": skipped tool "bad_schema": its inputSchema is not an object/),
        expect.stringMatching(/Server "broken": skipped duplicate tool "dup"/),
      ]),
    );
    expect((await bridge.call("mcp_broken_good_4999")).text).toBe("ok");
  });
});

describe("config abuse", () => {
  it("a 10 MB config, deeply nested JSON, a 10,000-character server name", async () => {
    const dir = tempDir();
    const big = join(dir, "big.json");
    const servers: Record<string, unknown> = {};
    for (let i = 0; i < 40_000; i++)
      servers[`server-${i}`] = { command: "node", args: ["x".repeat(200)], enabled: false };
    writeFileSync(big, JSON.stringify({ mcpServers: servers }));
    expect(readFileSync(big).length).toBeGreaterThan(10_000_000);
    const loaded = await loadConfig({ path: big, env: {} });
    expect(loaded.servers).toHaveLength(40_000);

    const deep = join(dir, "deep.json");
    writeFileSync(
      deep,
      `{"mcpServers":{"a":{"command":"node","env":${'{"x":'.repeat(5000)}1${"}".repeat(5000)}},"b":{"command":"node"}}}`,
    );
    const nested = await loadConfig({ path: deep, env: {} });
    expect(nested.servers.map((s) => s.name)).toEqual(["b"]);
    expect(nested.warnings.some((w) => w.server === "a")).toBe(true);

    const longName = "n".repeat(10_000);
    await using bridge = await startBridge({ servers: { [longName]: stdioEntry("normal") } });
    const tool = bridge.tools()[0];
    expect(tool?.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(tool?.server).toBe(longName);
    expect((await bridge.call(`${longName}/add`, { a: 1, b: 1 })).text).toBe("2");
  });

  it("shell metacharacters reach the program literally and never a shell", async () => {
    const dir = tempDir();
    const marker = join(dir, "pwned");
    const hostile = [
      `$(touch ${marker})`,
      `; touch ${marker}`,
      `\`touch ${marker}\``,
      `| touch ${marker}`,
      `&& touch ${marker}`,
    ];
    await using bridge = await startBridge({
      servers: {
        args: stdioEntry("normal", {}, hostile),
        command: { command: `node; touch ${marker}`, args: [] },
      },
    });
    expect(bridge.server("args")?.state).toBe("connected");
    expect(bridge.server("command")?.state).toBe("failed");
    expect(bridge.server("command")?.lastError?.message).toContain("ENOENT");
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(marker)).toBe(false);
  });

  it("tool output is data: nothing in it is expanded or executed", async () => {
    await using bridge = await startBridge({
      servers: { calc: stdioEntry("normal") },
      env: { HOME: "/home/x", SECRET: "s3cr3t" },
    });
    const text = '${SECRET} $(id) `id` ~/x {"mcpServers":{}}';
    expect((await bridge.call("calc/echo", { text })).text).toBe(text);
  });
});
