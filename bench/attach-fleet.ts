import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { descendants, ussKiB } from "./proc-memory.js";
import { type Figure, percentile } from "./stats.js";

/**
 * `mcp-bridge attach` (issue 27, item 6): with three real npm servers, the memory of five attached host
 * sessions against one (sum of USS of every process involved: the shims, the daemon, the upstream
 * servers), and the start of a new session on a warm daemon (spawn to the answer of its first
 * tools/list) against a bare `node -e 0` in the same run.
 * Runs alone as `node dist/bench/attach-fleet.js [--quick]` after `npx tsc -p tsconfig.build.json`.
 */

const CLI = fileURLToPath(new URL("../src/apps/cli/bin.js", import.meta.url));
const modules = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url));
const server = (name: string) => join(modules, `server-${name}`, "dist/index.js");

export const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
};

export interface Session {
  readonly child: ChildProcess;
  /** Resolves with the tools of the answer to the request with this id. */
  answer(id: number): Promise<{ name: string }[]>;
  send(message: unknown): void;
}

/** A host session through `mcp-bridge attach` (or another command given: `["serve", "--stdio"]`). */
export function openSession(
  config: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  command: readonly string[] = ["attach"],
): Session {
  const child = spawn(process.execPath, [CLI, ...command, "-c", config], {
    env,
    cwd,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const waiting = new Map<number, (tools: { name: string }[]) => void>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const message = JSON.parse(line) as {
      id?: number;
      method?: string;
      result?: { tools?: { name: string }[] };
    };
    if (message.method === undefined && typeof message.id === "number")
      waiting.get(message.id)?.(message.result?.tools ?? []);
  });
  return {
    child,
    send: (message) => child.stdin?.write(`${JSON.stringify(message)}\n`),
    answer: (id) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`attach: no answer to request ${id}`)), 60_000);
        waiting.set(id, (tools) => {
          clearTimeout(timer);
          resolve(tools);
        });
      }),
  };
}

export async function initialized(session: Session): Promise<void> {
  const answered = session.answer(1);
  session.send(INIT);
  await answered;
  session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

let next = 100;
/** Calls a tool; resolves on its answer (whatever it is). */
export async function callTool(session: Session, name: string, args: Record<string, unknown>): Promise<void> {
  const id = next++;
  const answered = session.answer(id);
  session.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  await answered;
}

export async function toolsList(session: Session): Promise<{ name: string }[]> {
  const id = next++;
  const answered = session.answer(id);
  session.send({ jsonrpc: "2.0", id, method: "tools/list" });
  return answered;
}

/** The daemon's pid, from its pid file in the runtime folder. */
function daemonPid(runtime: string): number {
  const folder = join(runtime, "mcp-bridge");
  const file = readdirSync(folder).find((name) => name.endsWith(".pid"));
  return Number.parseInt(readFileSync(join(folder, file as string), "utf8"), 10);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function attachFleetFigures(quick: boolean): Promise<Figure[]> {
  const home = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-attach-"));
  const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-attach-run-"));
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, NO_COLOR: "1" };
  const files = join(home, "files");
  mkdirSync(files);
  const config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [server("everything"), "stdio"] },
        fs: { command: process.execPath, args: [server("filesystem"), files] },
        memory: {
          command: process.execPath,
          args: [server("memory")],
          env: { MEMORY_FILE_PATH: join(home, "memory.jsonl") },
        },
      },
    }),
  );
  const sessions: Session[] = [];
  try {
    const first = openSession(config, env, home);
    sessions.push(first);
    await initialized(first);
    // Every server up: tools of all three listed.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const servers = new Set((await toolsList(first)).map((tool) => tool.name.split("_")[1]));
      if (["everything", "fs", "memory"].every((name) => servers.has(name))) break;
      if (Date.now() > deadline) throw new Error("attach bench: the three servers did not come up");
      await sleep(200);
    }
    const daemon = daemonPid(runtime);
    const measure = () => {
      const upstream = descendants(daemon);
      const shims = sessions.map((s) => s.child.pid as number);
      const kib = [daemon, ...upstream, ...shims].reduce((sum, pid) => sum + ussKiB(pid), 0);
      return { kib, upstream: upstream.length };
    };
    await sleep(500);
    const one = measure();
    for (let i = 0; i < 4; i++) {
      const session = openSession(config, env, home);
      sessions.push(session);
      await initialized(session);
      await toolsList(session);
    }
    await sleep(500);
    const five = measure();

    // A new session on the warm daemon: spawn to its first tools/list answer, one at a time, each
    // followed by a bare `node -e 0` (alternated, so a load that comes and goes slows both alike).
    const count = quick ? 8 : 20;
    const startMs: number[] = [];
    const nodeMs: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = process.hrtime.bigint();
      const session = openSession(config, env, home);
      const answered = session.answer(2);
      session.send(INIT);
      session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      session.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await answered;
      startMs.push(Number(process.hrtime.bigint() - started) / 1e6);
      session.child.stdin?.end();
      await new Promise((resolve) => session.child.once("close", resolve));
      const bare = process.hrtime.bigint();
      spawnSync(process.execPath, ["-e", "0"]);
      nodeMs.push(Number(process.hrtime.bigint() - bare) / 1e6);
    }
    const attachP50 = percentile(startMs, 0.5);
    const nodeP50 = percentile(nodeMs, 0.5);
    const ratio = five.kib / one.kib;
    return [
      {
        name: "attach_memory_5_sessions",
        unit: "MiB",
        bridge: five.kib / 1024,
        baseline: one.kib / 1024,
        baselineName: "1 session",
        detail: `sum of USS of the shims, the daemon and its ${one.upstream} upstream processes (servers and the watchdog): ${(one.kib / 1024).toFixed(1)} MiB with 1 session, ${(five.kib / 1024).toFixed(1)} MiB with 5 (ratio ${ratio.toFixed(2)}); upstream processes ${one.upstream} -> ${five.upstream}`,
        target: {
          text: "<= 1.5x, no extra upstream process",
          met: ratio <= 1.5 && five.upstream === one.upstream,
        },
      },
      {
        name: "attach_first_tools_list",
        unit: "ms",
        bridge: attachP50,
        baseline: nodeP50,
        baselineName: "node -e 0",
        detail: `p50 of ${count} new \`attach\` processes on a warm daemon, alternated with node -e 0, spawn to the tools/list answer; minus node -e 0: ${(attachP50 - nodeP50).toFixed(1)} ms`,
        target: { text: "<= node -e 0 + 60 ms", met: attachP50 - nodeP50 <= 60 },
      },
    ];
  } finally {
    for (const session of sessions) session.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLI, "daemon", "stop", "-c", config], { env, cwd: home });
    rmSync(home, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
  }
}

// Alone: `node dist/bench/attach-fleet.js [--quick]`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const figure of await attachFleetFigures(process.argv.includes("--quick")))
    process.stdout.write(
      `${figure.name}: ${figure.bridge.toFixed(1)} ${figure.unit} vs ${figure.baselineName} ${figure.baseline.toFixed(1)} ${figure.unit}; ${figure.detail}; target ${figure.target?.text}: ${figure.target?.met ? "met" : "NOT met"}\n`,
    );
}
