import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { alive, stdioEntry } from "../fixtures/servers/index.js";
import { type AttachSession, attachSession, textOf, toolNamed } from "../helpers/attach-client.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { secondUser } from "../helpers/second-user.js";

let home: string;
let config: string;
/** A fresh runtime folder per test: its own daemons, killed in afterEach; never the user's. */
let runtime: string;
let env: Record<string, string>;
const sessions: AttachSession[] = [];

beforeAll(() => {
  home = emptyHome();
  config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        calc: stdioEntry("normal"),
        slow: stdioEntry("slow-tool"),
        vault: stdioEntry("asks-for-secret"),
      },
    }),
  );
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

beforeEach(() => {
  runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-attach-"));
  env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
});

const folder = () => join(runtime, "mcp-bridge");
function daemonPids(): number[] {
  if (!existsSync(folder())) return [];
  return readdirSync(folder())
    .filter((name) => name.endsWith(".pid"))
    .map((name) => Number.parseInt(readFileSync(join(folder(), name), "utf8"), 10))
    .filter((pid) => pid > 0);
}
const killed: number[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) {
    session.child.kill("SIGKILL");
  }
  for (const pid of [...daemonPids(), ...killed.splice(0)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  rmSync(runtime, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function open(extra: string[] = [], answer?: Parameters<typeof attachSession>[1]["answer"]): AttachSession {
  const session = attachSession(["-c", config, ...extra], { cwd: home, env, answer });
  sessions.push(session);
  return session;
}

async function daemonStatus(): Promise<{ pid: number; attachedSessions: number } | undefined> {
  const run = await runCli(["daemon", "status", "--json", "-c", config], { cwd: home, env });
  const info = JSON.parse(run.stdout) as { running: boolean; pid: number; attachedSessions: number };
  return info.running ? info : undefined;
}

function parentOf(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

/**
 * The pids of the processes running `fixture` under the daemon (its upstream servers: each is one of
 * the daemon's own children, in their own process groups), from /proc.
 */
function processesOf(fixture: string, daemon: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const under = parentOf(pid) === daemon || parentOf(parentOf(pid)) === daemon;
        return under && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`servers/${fixture}.js`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("mcp-bridge attach", () => {
  it("serves two sessions from one daemon: one upstream process, tools/list and calls work in both", async () => {
    const a = open();
    await a.initialize();
    const b = open();
    await b.initialize();
    const pidTool = await toolNamed(a, "pid");
    // Named as serve --stdio names them (<server>_<tool>), not as the daemon's CLI does (mcp_calc_pid).
    expect(pidTool).toBe("calc_pid");
    expect(await toolNamed(b, "pid")).toBe(pidTool);
    const [fromA, fromB] = await Promise.all([
      a.request("tools/call", { name: pidTool, arguments: {} }),
      b.request("tools/call", { name: pidTool, arguments: {} }),
    ]);
    expect(textOf(fromA)).toMatch(/^\d+$/);
    expect(textOf(fromB)).toBe(textOf(fromA));
    const status = await daemonStatus();
    expect(processesOf("normal", status?.pid as number)).toEqual([Number(textOf(fromA))]);
    const add = await toolNamed(a, "add");
    const sum = await b.request("tools/call", { name: add, arguments: { a: 2, b: 3 } });
    expect(textOf(sum)).toBe("5");
    expect(status?.attachedSessions).toBe(2);
    expect(await a.close()).toBe(0);
    await until(async () => (await daemonStatus())?.attachedSessions === 1, "the first session to detach");
  }, 90_000);

  it("serves an attach --code-mode session the three code-mode tools over the same daemon and servers", async () => {
    const plain = open();
    await plain.initialize();
    const coded = open(["--code-mode"]);
    await coded.initialize();
    const listed = await coded.request("tools/list");
    const names = ((listed.result?.tools ?? []) as { name: string }[]).map((t) => t.name).sort();
    expect(names).toEqual(["describe_tools", "execute_code", "search_tools"]);
    const run = await coded.request(
      "tools/call",
      {
        name: "execute_code",
        arguments: { code: "const r = await tools.calc.add({ a: 20, b: 22 }); console.log(r.text);" },
      },
      60_000,
    );
    expect(textOf(run)).toBe("42");
    // The other session still sees every tool, from the same daemon.
    expect(await toolNamed(plain, "add")).toMatch(/add$/);
    expect((await daemonStatus())?.attachedSessions).toBe(2);
  }, 90_000);

  it("serves an attach --llm-results session the library's capped text, others results unchanged", async () => {
    const media = join(home, "media.json");
    writeFileSync(
      media,
      JSON.stringify({ mcpServers: { media: { ...stdioEntry("content-types"), maxResultChars: 100 } } }),
    );
    const attachTo = (extra: string[]) => {
      const session = attachSession(["-c", media, ...extra], { cwd: home, env });
      sessions.push(session);
      return session;
    };
    const plain = attachTo([]);
    await plain.initialize();
    const llm = attachTo(["--llm-results"]);
    await llm.initialize();
    const big = { name: await toolNamed(llm, "big"), arguments: { chars: 1000 } };
    const image = { name: await toolNamed(llm, "image"), arguments: {} };
    expect(textOf(await plain.request("tools/call", big))).toBe("x".repeat(1000));
    const cut = textOf(await llm.request("tools/call", big));
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/\[\.\.\. truncated: \d+ more characters\]$/);
    const raw = await plain.request("tools/call", image);
    expect(((raw.result?.content ?? []) as { type: string }[])[0]?.type).toBe("image");
    const described = await llm.request("tools/call", image);
    expect(described.result?.content).toEqual([
      { type: "text", text: expect.stringMatching(/^\[image: image\/png, \d+ B\]$/) },
    ]);
  }, 90_000);

  it("asks the elicitation of an upstream call of the session whose call caused it, and no other", async () => {
    const answer = (name: string) => (request: { method?: string }) =>
      request.method === "elicitation/create" ? { action: "accept", content: { apiKey: name } } : undefined;
    const a = open([], answer("from-a"));
    await a.initialize({ elicitation: {} });
    const b = open([], answer("from-b"));
    await b.initialize({ elicitation: {} });
    const login = await toolNamed(a, "login");
    const result = await b.request("tools/call", { name: login, arguments: {} });
    expect(textOf(result)).toContain("from-b");
    expect(b.asked.map((m) => m.method)).toEqual(["elicitation/create"]);
    expect(a.asked).toEqual([]);
  }, 90_000);

  it("never asks a session a question caused by a CLI command the daemon answers meanwhile", async () => {
    const a = open([], (request) =>
      request.method === "elicitation/create"
        ? { action: "accept", content: { apiKey: "from-a" } }
        : undefined,
    );
    await a.initialize({ elicitation: {} });
    const wait = await toolNamed(a, "wait");
    const release = await toolNamed(a, "release");
    // The session's call runs on the server, so the question below is not obviously the session's...
    const waiting = a.start("tools/call", { name: wait, arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // ...but the CLI's call, answered by the same daemon, is what asks it.
    const run = await runCli(["call", "vault/login", "--json", "-c", config], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(run.stdout).not.toContain("from-a");
    expect(a.asked).toEqual([]);
    await a.request("tools/call", { name: release, arguments: {} });
    expect(textOf(await waiting.answer)).toBe("released");
  }, 90_000);

  it("survives the daemon's kill -9: running requests fail, the shim reconnects, lists changed, calls work", async () => {
    const a = open();
    await a.initialize();
    const pidTool = await toolNamed(a, "pid");
    const before = Number(textOf(await a.request("tools/call", { name: pidTool, arguments: {} })));
    const sleep = await toolNamed(a, "sleep");
    const maxActive = await toolNamed(a, "max_active");
    // Longer than anything below can take on a loaded machine: the call must still be running when
    // the daemon dies, and its answer must be the relay's, not the sleep's end or our own timeout.
    const running = a.start("tools/call", { name: sleep, arguments: { ms: 80_000 } }, 85_000);
    // Killed once the call runs on the server (not while it is still on its way).
    await until(
      async () => textOf(await a.request("tools/call", { name: maxActive, arguments: {} })) === "1",
      "the call to reach the server",
      30_000,
    );
    const daemon = (await daemonStatus())?.pid as number;
    const upstream = [
      ...processesOf("slow-tool", daemon),
      ...processesOf("normal", daemon),
      ...processesOf("asks-for-secret", daemon),
    ];
    process.kill(daemon, "SIGKILL");
    killed.push(...upstream);
    const failed = await running.answer;
    expect(failed.error?.message).toContain("went away");
    // A new daemon starts and its servers connect: bounds for a loaded machine.
    await a.until(
      () => a.notifications.some((n) => n.method === "notifications/tools/list_changed"),
      "tools/list_changed after the reconnect",
      45_000,
    );
    const after = await toolNamed(a, "pid", 45_000);
    const again = await a.request("tools/call", { name: after, arguments: {} }, 30_000);
    expect(Number(textOf(again))).toBeGreaterThan(0);
    expect(Number(textOf(again))).not.toBe(before);
    const status = await daemonStatus();
    expect(status?.pid).not.toBe(daemon);
    expect(status?.attachedSessions).toBe(1);
  }, 240_000);

  it("a session's exit cancels its own call only", async () => {
    const a = open();
    await a.initialize();
    const b = open();
    await b.initialize();
    const sleep = await toolNamed(a, "sleep");
    const cancelled = await toolNamed(a, "cancelled");
    const maxActive = await toolNamed(a, "max_active");
    a.start("tools/call", { name: sleep, arguments: { ms: 15_000 } });
    // Killed once its call runs on the server (not while it is still on its way).
    await until(
      async () => textOf(await b.request("tools/call", { name: maxActive, arguments: {} })) === "1",
      "the session's call to reach the server",
    );
    const other = b.start("tools/call", { name: sleep, arguments: { ms: 2_500 } });
    await until(
      async () => textOf(await b.request("tools/call", { name: maxActive, arguments: {} })) === "2",
      "the other session's call to reach the server",
    );
    a.child.kill("SIGKILL");
    await until(
      async () => textOf(await b.request("tools/call", { name: cancelled, arguments: {} })) === "1",
      "the killed session's call to be cancelled",
    );
    expect(textOf(await other.answer)).toBe("slept");
    expect(textOf(await b.request("tools/call", { name: cancelled, arguments: {} }))).toBe("1");
  }, 90_000);

  it("keeps the daemon up while a session is attached, past its idle time; it stops once none is", async () => {
    const a = open(["--idle", "1s"]);
    await a.initialize();
    const pid = (await daemonStatus())?.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(alive(pid)).toBe(true);
    expect(
      textOf(await a.request("tools/call", { name: await toolNamed(a, "add"), arguments: { a: 1, b: 1 } })),
    ).toBe("2");
    expect(await a.close()).toBe(0);
    await until(() => !alive(pid), "the idle daemon to stop", 15_000);
  }, 90_000);

  it("the daemon's socket refuses another local user", async (ctx) => {
    const other = secondUser();
    if (typeof other === "string") return ctx.skip(other);
    const a = open();
    await a.initialize();
    const socket = readdirSync(folder()).find((name) => name.endsWith(".sock")) as string;
    const path = join(folder(), socket);
    // Even with the folders on the way opened, the socket itself (0600) refuses them.
    chmodSync(runtime, 0o755);
    chmodSync(folder(), 0o755);
    const script = `const s=require("node:net").createConnection(${JSON.stringify(path)});s.on("connect",()=>{console.log("connected");process.exit(0)});s.on("error",(e)=>{console.log(e.code);process.exit(0)})`;
    let seen: string;
    try {
      seen = other.run(process.execPath, ["-e", script]).trim();
    } finally {
      chmodSync(folder(), 0o700);
      chmodSync(runtime, 0o700);
    }
    expect(seen).toBe("EACCES");
    // And a folder opened to others is refused by attach itself, which never talks to a socket there.
    chmodSync(folder(), 0o755);
    const b = open();
    const code = await new Promise<number | null>((resolve) => b.child.on("close", resolve));
    chmodSync(folder(), 0o700);
    expect(code).not.toBe(0);
    expect(b.stderr()).toContain("Refusing the daemon folder");
    expect(execFileSync("stat", ["-c", "%a", path], { encoding: "utf8" }).trim()).toBe("600");
  }, 90_000);
});
