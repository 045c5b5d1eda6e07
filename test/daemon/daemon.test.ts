import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { alive, stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome, preloadCliInProcess, runCli, runCliInProcess } from "../helpers/cli.js";

preloadCliInProcess();

let home: string;
let config: string;
/** A fresh runtime folder per test, so every test has its own daemons (killed in afterEach). */
let runtime: string;
let env: Record<string, string>;

beforeAll(() => {
  home = emptyHome();
  config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        calc: stdioEntry("normal"),
        slow: stdioEntry("slow-tool"),
        notes: {
          command: process.execPath,
          args: [resolve("dist/examples/servers/notes.js")],
          env: { NOTES_DIR: join(home, "notes") },
        },
      },
    }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

beforeEach(() => {
  runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-run-"));
  env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
});

const folder = () => join(runtime, "mcp-bridge");
const files = (suffix: string) =>
  existsSync(folder()) ? readdirSync(folder()).filter((name) => name.endsWith(suffix)) : [];

/** Polls until `check` holds; bounded. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const started: number[] = [];
afterEach(async () => {
  // Every daemon this test started (and any still recorded in its runtime folder) is killed.
  for (const name of files(".pid")) {
    const pid = Number.parseInt(readFileSync(join(folder(), name), "utf8"), 10);
    if (pid > 0) started.push(pid);
  }
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  rmSync(runtime, { recursive: true, force: true });
});

const cli = (args: string[], timeoutMs?: number) =>
  runCli([...args, "-c", config], { cwd: home, env, timeoutMs });

/**
 * The same command run by the CLI's code in this process, routed as the built CLI routes it (a running
 * daemon answers first): for the commands a test only needs the answer of (the outputs compared with
 * and without the daemon, the polls), where a process per run would cost most of the file's time. The
 * built CLI still starts, stops and calls the daemon in every test.
 */
const inProcess = (args: string[]) =>
  runCliInProcess([...args, "-c", config], { cwd: home, env, daemon: true });

async function startDaemon(extra: string[] = []): Promise<{ pid: number; socket: string }> {
  const run = await cli(["daemon", "start", "--json", ...extra], 40_000);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const info = JSON.parse(run.stdout) as { pid: number; socket: string; running: boolean };
  expect(info.running).toBe(true);
  started.push(info.pid);
  return info;
}

async function daemonInfo(): Promise<{ pid: number; activeRequests: number } | undefined> {
  const run = await inProcess(["daemon", "status", "--json"]);
  const info = JSON.parse(run.stdout) as { running: boolean; pid: number; activeRequests: number };
  return info.running ? info : undefined;
}

function spawnCall(args: string[]): {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [CLI, "call", ...args, "-c", config], {
    cwd: home,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.resume();
  const exit = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  return { child, stderr: () => stderr, exit };
}

describe("mcp-bridge daemon", () => {
  it("start, status and stop; the socket is 0600 in a 0700 folder of the user", async () => {
    const { pid, socket } = await startDaemon();
    expect(socket.startsWith(folder())).toBe(true);
    expect(statSync(folder()).mode & 0o777).toBe(0o700);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const status = JSON.parse((await inProcess(["daemon", "status", "--json"])).stdout);
    expect(status).toMatchObject({ running: true, pid, socket, config });
    expect(status.uptimeMs).toBeGreaterThanOrEqual(0);
    // The limit it stops at, named as such (it said `idleMs`, read as "idle for so long").
    expect(status.idleLimitMs).toBeGreaterThan(0);
    expect(status).not.toHaveProperty("idleMs");
    expect(status.servers.map((s: { name: string }) => s.name)).toEqual(["calc", "slow", "notes"]);
    const again = JSON.parse((await inProcess(["daemon", "start", "--json"])).stdout);
    expect(again.pid).toBe(pid);
    const stop = await cli(["daemon", "stop"]);
    expect(stop.code).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(existsSync(socket)).toBe(false);
    expect((await inProcess(["daemon", "status", "--json"])).code).toBe(1);
  }, 60_000);

  it("answers the bridge commands with the same output as without it; --no-daemon bypasses it", async () => {
    await inProcess(["call", "notes/create", "title=First", "body=hello"]);
    const commands = [
      ["call", "calc/add", "a=2", "b=3"],
      ["call", "calc/echo", "text=5"],
      ["call", "calc/fail"],
      // Progress notifications reach stderr through the daemon as they do in-process.
      ["call", "slow/progress", "steps=2", "intervalMs=10"],
      ["call", "nosuch/tool"],
      ["call", "mcp_calc_nosuch"],
      ["tools"],
      ["tools", "--server", "calc"],
      ["tools", "--format", "openai"],
      ["describe", "calc/add"],
      ["resources"],
      ["read", "note://1"],
      ["prompts"],
      ["prompt", "mcp_notes_summarize"],
      // Last: the daemon starts a server the catalog cache lists on its first use (here `resources`
      // starts notes), where a command in process starts them all; by now every server has been used.
      ["status"],
    ];
    const before = [];
    for (const args of commands) {
      before.push(await inProcess(args));
      before.push(await inProcess([...args, "--json"]));
    }
    await startDaemon();
    let index = 0;
    for (const args of commands) {
      for (const variant of [args, [...args, "--json"]]) {
        const expected = before[index++];
        const got = await inProcess(variant);
        const normalize = (text: string) =>
          text
            .replace(/"startMs": \d+/g, '"startMs": 0')
            // In-process, `call` starts only the servers that can own the tool; the daemon runs them all.
            .replace(/\(\d+ tools registered\)/g, "(N tools registered)")
            .replace(/(stdio\s+connected\s+\d+\s+\S+\s+)\d+/g, "$10");
        expect({
          args: variant,
          code: got.code,
          stdout: normalize(got.stdout),
          stderr: normalize(got.stderr),
        }).toEqual({
          args: variant,
          code: expected?.code,
          stdout: normalize(expected?.stdout ?? ""),
          stderr: normalize(expected?.stderr ?? ""),
        });
      }
    }
    // The daemon's server answers every call; --no-daemon starts a new one.
    const pid = async (extra: string[] = []) => (await cli(["call", "calc/pid", ...extra])).stdout.trim();
    const warm = await pid();
    expect(await pid()).toBe(warm);
    expect(await pid(["--no-daemon"])).not.toBe(warm);
  }, 180_000);

  it("a daemon killed mid-call: the CLI reports it (DAEMON_UNAVAILABLE), it does not hang", async () => {
    const { pid } = await startDaemon();
    const call = spawnCall(["slow/progress", "steps=200", "intervalMs=100", "--json"]);
    let stdout = "";
    call.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    await until(async () => ((await daemonInfo())?.activeRequests ?? 0) > 0, "the call to reach the daemon");
    process.kill(pid, "SIGKILL");
    expect(await call.exit).toBe(1);
    const document = JSON.parse(stdout);
    expect(document).toMatchObject({
      name: "slow/progress",
      isError: true,
      error: { code: "DAEMON_UNAVAILABLE" },
    });
    expect(document.error.message).toContain("--no-daemon");
  }, 60_000);

  it("a client killed mid-call cancels its call and leaves the daemon serving", async () => {
    const { pid } = await startDaemon();
    const call = spawnCall(["slow/sleep", "ms=60000"]);
    // The server counts the sleeps it started: then the call is running in it.
    await until(
      async () => (await inProcess(["call", "slow/max_active"])).stdout.trim() === "1",
      "the call to run",
    );
    call.child.kill("SIGKILL");
    await call.exit;
    // The server saw the cancellation, and the daemon still answers.
    await until(
      async () => (await inProcess(["call", "slow/cancelled"])).stdout.trim() === "1",
      "the cancellation",
    );
    const after = await cli(["call", "calc/add", "a=1", "b=1"]);
    expect(after.stdout).toBe("2\n");
    expect((await daemonInfo())?.pid).toBe(pid);
  }, 60_000);

  it("a stale socket (daemon died) is bypassed and cleaned up; a new daemon starts in its place", async () => {
    const { pid, socket } = await startDaemon();
    process.kill(pid, "SIGKILL");
    await until(() => !alive(pid), "the daemon to die");
    expect(existsSync(socket)).toBe(true);
    const run = await cli(["call", "calc/add", "a=2", "b=3"]);
    expect(run).toMatchObject({ code: 0, stdout: "5\n" });
    expect(existsSync(socket)).toBe(false);
    expect((await cli(["daemon", "status"])).code).toBe(1);
    // A stale socket and pid file left in place do not stop a new daemon either.
    writeFileSync(socket, "");
    const fresh = await startDaemon();
    expect(fresh.pid).not.toBe(pid);
  }, 60_000);

  it("two CLIs starting a daemon at once end with one daemon", async () => {
    const [a, b] = await Promise.all([
      cli(["daemon", "start", "--json"], 40_000),
      cli(["daemon", "start", "--json"], 40_000),
    ]);
    const pa = JSON.parse(a?.stdout ?? "{}").pid;
    const pb = JSON.parse(b?.stdout ?? "{}").pid;
    started.push(pa, pb);
    expect([a?.code, b?.code]).toEqual([0, 0]);
    expect(pa).toBe(pb);
    expect(files(".pid")).toHaveLength(1);
    expect(files(".sock")).toHaveLength(1);
  }, 60_000);

  it("picks up config changes: a server added to the file is served without a restart", async () => {
    const own = join(home, "reload.json");
    writeFileSync(own, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const run = (args: string[]) => runCli([...args, "-c", own], { cwd: home, env, timeoutMs: 40_000 });
    const start = await run(["daemon", "start", "--json"]);
    const { pid } = JSON.parse(start.stdout) as { pid: number };
    started.push(pid);
    expect((await run(["call", "more/add", "a=1", "b=2"])).code).toBe(1);
    writeFileSync(
      own,
      JSON.stringify({ mcpServers: { calc: stdioEntry("normal"), more: stdioEntry("normal") } }),
    );
    const poll = () =>
      runCliInProcess(["call", "more/add", "a=1", "b=2", "-c", own], { cwd: home, env, daemon: true });
    await until(async () => (await poll()).stdout === "3\n", "the reload");
    expect(JSON.parse((await run(["daemon", "status", "--json"])).stdout).pid).toBe(pid);
  }, 60_000);

  it("stops by itself after the idle time", async () => {
    const { pid, socket } = await startDaemon(["--idle", "1s"]);
    await until(() => !alive(pid), "the idle daemon to stop");
    expect(existsSync(socket)).toBe(false);
    expect(files(".pid")).toEqual([]);
  }, 60_000);

  it("refuses a runtime folder others can enter, and the commands then run without a daemon", async () => {
    mkdirSync(folder(), { mode: 0o700 });
    chmodSync(folder(), 0o755);
    const run = await cli(["daemon", "start"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("only its owner may have access");
    expect((await cli(["call", "calc/add", "a=2", "b=3"])).stdout).toBe("5\n");
  }, 60_000);
});
