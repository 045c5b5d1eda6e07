import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome, spawnCli } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

/**
 * `serve` with an upstream server that never answers its handshake (start timeout 60 s), one that
 * answers only once the test opens its gate, one that exits at start and one that works: the host gets
 * its `initialize` and `tools/list` answered well before the hanging server's timeout, learns of the
 * late server by `tools/list_changed`, and a call made before that server was up runs once it is.
 */

/** Far below the hanging server's 60 s start timeout: an answer within it did not wait for that server. */
const ANSWER_BOUND_MS = 20_000;

function within<T>(promise: Promise<T>, what: string, ms = ANSWER_BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

interface Setup {
  readonly home: string;
  readonly config: string;
  /** Creating this file lets the late server answer its handshake. */
  readonly gate: string;
  /** Marks the upstream processes of this test, to find any the gateway left behind. */
  readonly tag: string;
}

function setup(): Setup {
  const home = emptyHome();
  const gate = join(home, "gate");
  const tag = `serve-startup-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const config = join(home, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        normal: stdioEntry("normal", {}, ["--tag", tag]),
        hang: stdioEntry("never-answers", { startupTimeout: "60s" }, ["--tag", tag]),
        late: stdioEntry("slow-start", {}, ["--until-file", gate, "--tag", tag]),
        broken: stdioEntry("exits-at-start", {}, ["--tag", tag]),
      },
    }),
  );
  return { home, config, gate, tag };
}

/** Pids of live processes whose command line holds `tag` (the never-answering fixture ignores SIGTERM). */
function pidsTagged(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(tag)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Tools that come up later are announced: after some `list_changed`, a listing holds `name`. */
async function announced(client: Client, notified: () => number, name: string): Promise<void> {
  let seen = 0;
  const deadline = Date.now() + ANSWER_BOUND_MS;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`${name} was not announced by tools/list_changed`);
    await until(() => notified() > seen, remaining);
    seen = notified();
    const names = (await within(client.listTools(), "tools/list")).tools.map((t) => t.name);
    if (names.includes(name)) return;
  }
}

/** Answered at once (the servers that are not up yet are not waited for); the working server's tools come. */
async function listsAtOnce(client: Client, notified: () => number): Promise<void> {
  const first = (await within(client.listTools(), "tools/list")).tools.map((t) => t.name);
  // The working server may still be starting when the host asks; then it is announced.
  if (!first.includes("normal_add")) await announced(client, notified, "normal_add");
  expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("late_add");
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The gateway's upstream processes are gone once it stopped; any survivor is killed and reported. */
async function expectUpstreamsGone(tag: string): Promise<void> {
  const left = await waitForExit(pidsTagged(tag), 10_000);
  for (const pid of left) process.kill(pid, "SIGKILL");
  expect(left).toEqual([]);
}

describe("serve answers before its upstream servers are up", () => {
  it("--stdio: initialize and tools/list at once, list_changed when a server comes up, a call waits for it", async () => {
    const { home, config, gate, tag } = setup();
    let changed = 0;
    const client = new Client(
      { name: "serve-startup-test", version: "1.0.0" },
      { listChanged: { tools: { autoRefresh: false, onChanged: () => changed++ } } },
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "-c", config],
      env: cliEnv(home),
      cwd: home,
      stderr: "pipe",
    });
    let stderr = "";
    (transport.stderr as Readable | null)?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    cleanups.push(async () => {
      await client.close();
      await expectUpstreamsGone(tag);
    });
    await within(client.connect(transport), "initialize");
    await listsAtOnce(client, () => changed);

    // Called before its server is up: waits for it (within the call timeout) rather than failing.
    const early = client.callTool(
      { name: "late_add", arguments: { a: 20, b: 22 } },
      {
        timeout: ANSWER_BOUND_MS,
      },
    );
    writeFileSync(gate, "");
    await announced(client, () => changed, "late_add");
    expect(textOf(await within(early, "the early call"))).toBe("42");

    // A tool of a server that failed to start: an error result that says which server and why.
    const down = await client.callTool({ name: "broken_anything", arguments: {} });
    expect(down.isError).toBe(true);
    expect(textOf(down)).toMatch(/server "broken" is failed/);
    // Its failure is on stderr once, though nobody waited for it.
    await until(() => stderr.includes('"broken"'), ANSWER_BOUND_MS);
    expect(stderr.split("\n").filter((line) => line.includes('"broken"'))).toHaveLength(1);
  }, 60_000);

  it("--http: both protocol eras answer at once, and a session hears of the late server", async () => {
    const { home, config, gate, tag } = setup();
    const child: ChildProcess = spawnCli(["serve", "--http", "0", "--json", "-c", config], {
      cwd: home,
      env: cliEnv(home),
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    cleanups.push(async () => {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await expectUpstreamsGone(tag);
    });
    const url = await within(
      new Promise<string>((resolve) => {
        let out = "";
        child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          const line = out.split("\n").find((l) => l.startsWith("{"));
          if (line) resolve((JSON.parse(line) as { url: string }).url);
        });
      }),
      "listening",
    );
    let changed = 0;
    const session = await within(
      connect(url, "2025-11-25", undefined, () => changed++),
      "2025 initialize",
    );
    const stateless = await within(connect(url, "2026-07-28", undefined), "2026 discovery");
    cleanups.unshift(async () => {
      await session.close();
      await stateless.close();
    });
    await listsAtOnce(session, () => changed);
    const names = (await within(stateless.listTools(), "tools/list")).tools.map((t) => t.name);
    expect(names).toContain("normal_add");
    expect(names).not.toContain("late_add");
    const early = stateless.callTool(
      { name: "late_add", arguments: { a: 1, b: 2 } },
      {
        timeout: ANSWER_BOUND_MS,
      },
    );
    writeFileSync(gate, "");
    await announced(session, () => changed, "late_add");
    expect(textOf(await within(early, "the early call"))).toBe("3");
  }, 60_000);

  it("--stdio: a server the catalog cache knows is listed at once while it still connects, and its tool waits for it", async () => {
    const home = emptyHome();
    const gate = join(home, "gate");
    const tag = `serve-startup-cache-${Date.now()}`;
    const config = join(home, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { late: stdioEntry("slow-start", {}, ["--until-file", gate, "--tag", tag]) },
      }),
    );
    const open = async () => {
      let changed = 0;
      const client = new Client(
        { name: "serve-startup-test", version: "1.0.0" },
        { listChanged: { tools: { autoRefresh: false, onChanged: () => changed++ } } },
      );
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "-c", config],
        env: cliEnv(home),
        cwd: home,
        stderr: "ignore",
      });
      await within(client.connect(transport), "initialize");
      return { client, changed: () => changed };
    };
    // A first run with the server up saves its tool list.
    writeFileSync(gate, "");
    const first = await open();
    cleanups.push(async () => {
      await first.client.close();
    });
    const listed = (await within(first.client.listTools(), "tools/list")).tools.map((t) => t.name);
    if (!listed.includes("late_add")) await announced(first.client, first.changed, "late_add");
    await first.client.close();
    await expectUpstreamsGone(tag);

    // The next run: the server cannot answer yet, its cached tools are served.
    rmSync(gate);
    const second = await open();
    cleanups.push(async () => {
      await second.client.close();
      await expectUpstreamsGone(tag);
    });
    const names = (await within(second.client.listTools(), "tools/list")).tools.map((t) => t.name);
    expect(names).toContain("late_add");
    const early = second.client.callTool(
      { name: "late_add", arguments: { a: 40, b: 2 } },
      { timeout: ANSWER_BOUND_MS },
    );
    writeFileSync(gate, "");
    expect(textOf(await within(early, "the call of a cached tool"))).toBe("42");
  }, 60_000);
});
