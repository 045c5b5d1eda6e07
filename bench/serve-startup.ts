/**
 * How soon `mcp-bridge serve` answers a host with an upstream server that never answers its handshake:
 * from spawning `serve --stdio` (or `serve --http`) to the answer of `initialize` + `tools/list`, with
 * one never-answering upstream plus one normal one, against the same with the normal one alone.
 * A client's first `tools/list` waits for servers still starting at most the list wait
 * (`--list-wait`, GATEWAY_DEFAULTS.listWaitMs): most hosts list once, so an answer before the servers
 * are up would be an empty list for good. The hanging server must hold the answer no longer than that.
 * Run alone: `node dist/bench/serve-startup.js [--quick]` (after `npx tsc -p tsconfig.build.json`).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { GATEWAY_DEFAULTS } from "../src/apps/gateway/gateway-defaults.js";
import { type Figure, fmt, percentile } from "./stats.js";

const CLI = fileURLToPath(new URL("../src/apps/cli/bin.js", import.meta.url));
const SERVER = fileURLToPath(new URL("./servers/bench-server.js", import.meta.url));
/** Reads its stdin and never answers: a server hung at its handshake. */
const HANGING = ["-e", "process.stdin.resume(); setInterval(() => {}, 1 << 30)"];
/** Far above what is measured: an answer below it did not wait for the hanging server. */
const HANG_TIMEOUT = "60s";
/** Bound of one run: a gateway that waited for the hanging server fails the run instead of stalling. */
const RUN_BOUND_MS = 30_000;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
};
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

function writeConfig(home: string, withHanging: boolean): string {
  const servers: Record<string, unknown> = { normal: { command: process.execPath, args: [SERVER] } };
  if (withHanging) servers.hang = { command: process.execPath, args: HANGING, startupTimeout: HANG_TIMEOUT };
  const config = join(home, withHanging ? "hanging.json" : "normal.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  return config;
}

function bounded<T>(promise: Promise<T>, child: ChildProcess): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${RUN_BOUND_MS} ms`)), RUN_BOUND_MS);
  });
  return Promise.race([promise, bound]).finally(() => {
    clearTimeout(timer);
    child.kill("SIGTERM");
  });
}

/** Milliseconds from spawning `serve --stdio` to the answer of tools/list (after initialize). */
async function stdioRun(config: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "serve", "--stdio", "-c", config], {
    env,
    cwd,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin.on("error", () => {});
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const answered = new Promise<number>((resolve) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as { id?: number };
      if (message.id === 1) {
        send({ jsonrpc: "2.0", method: "notifications/initialized" });
        send(LIST);
      }
      if (message.id === 2) resolve(performance.now() - started);
    });
  });
  send(INITIALIZE);
  const ms = await bounded(answered, child);
  await exited;
  return ms;
}

/** Milliseconds from spawning `serve --http` to the answer of tools/list (after initialize, 2025-11-25 session). */
async function httpRun(config: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, "serve", "--http", "0", "--json", "-c", config], {
    env,
    cwd,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const answered = (async () => {
    const url = await new Promise<string>((resolve) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        if (line.startsWith("{")) resolve((JSON.parse(line) as { url: string }).url);
      });
    });
    const headers = { "content-type": "application/json", accept: "application/json" };
    const init = await fetch(url, { method: "POST", headers, body: JSON.stringify(INITIALIZE) });
    await init.text();
    const session = init.headers.get("mcp-session-id") ?? "";
    const sessionHeaders = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
    await (
      await fetch(url, { method: "POST", headers: sessionHeaders, body: JSON.stringify(initialized) })
    ).text();
    const list = await fetch(url, { method: "POST", headers: sessionHeaders, body: JSON.stringify(LIST) });
    const text = await list.text();
    if (!text.includes('"tools"')) throw new Error(`tools/list failed: ${text.slice(0, 200)}`);
    return performance.now() - started;
  })();
  const ms = await bounded(answered, child);
  await exited;
  return ms;
}

export async function serveStartupFigures(quick: boolean): Promise<Figure[]> {
  const home = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-serve-"));
  // A home of its own: no catalog cache from earlier runs lists the tools ahead of their servers.
  const env = { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, "cache"), NO_COLOR: "1" };
  const count = quick ? 3 : 7;
  const hanging = writeConfig(home, true);
  const normal = writeConfig(home, false);
  const figures: Figure[] = [];
  // Node's own start on this machine, for scale: on a loaded machine every figure here grows with it.
  const node = percentile(
    Array.from({ length: count }, () => {
      const started = performance.now();
      spawnSync(process.execPath, ["-e", "0"]);
      return performance.now() - started;
    }),
    0.5,
  );
  try {
    for (const [kind, run] of [
      ["stdio", stdioRun],
      ["http", httpRun],
    ] as const) {
      const withHang: number[] = [];
      const alone: number[] = [];
      // Alternated, so that machine noise hits both alike.
      for (let i = 0; i < count; i++) {
        withHang.push(await run(hanging, env, home));
        alone.push(await run(normal, env, home));
      }
      const p50 = percentile(withHang, 0.5);
      figures.push({
        name: `serve_${kind}_tools_list_with_hanging_upstream`,
        unit: "ms",
        bridge: p50,
        baseline: percentile(alone, 0.5),
        baselineName: "without the hanging upstream",
        detail: `p50 of ${count} runs, spawn to tools/list answer; max ${fmt(Math.max(...withHang))} ms; hanging upstream's start timeout ${HANG_TIMEOUT}; bare \`node -e 0\` p50 ${fmt(node)} ms`,
        target: {
          text: `< the list wait (${GATEWAY_DEFAULTS.listWaitMs} ms) + 1000 ms`,
          met: p50 < GATEWAY_DEFAULTS.listWaitMs + 1000,
        },
      });
    }
    return figures;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const f of await serveStartupFigures(process.argv.includes("--quick"))) {
    console.log(
      `${f.name}: ${fmt(f.bridge)} ${f.unit} (${f.baselineName}: ${fmt(f.baseline)} ${f.unit}); ${f.detail}; target ${f.target?.text}: ${f.target?.met ? "MET" : "MISSED"}`,
    );
  }
}
