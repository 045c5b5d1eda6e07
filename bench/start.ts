/**
 * How fast mcp-bridge starts, against what it cannot go below, every ratio measured in the same run
 * with runs alternated (hyperfine-style: one run of each command in turn, N rounds, medians compared),
 * so a machine busy with something else slows all sides alike:
 *   `mcp-bridge --version` and `--help` against `node -e 0`;
 *   `import "mcp-bridge"` against `import "@modelcontextprotocol/client"` (the SDK client it wraps);
 *   a new `mcp-bridge attach` on a warm daemon, spawn to the answer of its first tools/list, against
 *   `node -e 0`.
 * `node dist/bench/start.js [--quick]` runs this section alone (after `npx tsc -p tsconfig.build.json`).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { INIT, initialized, openSession, type Session, toolsList } from "./attach-fleet.js";
import { type Figure, fmt, percentile } from "./stats.js";

const CLI = fileURLToPath(new URL("../src/apps/cli/bin.js", import.meta.url));
const SERVER = fileURLToPath(new URL("./servers/bench-server.js", import.meta.url));
const LIBRARY = new URL("../src/index.js", import.meta.url).href;
const importOf = (specifier: string) => [
  "--input-type=module",
  "-e",
  `await import(${JSON.stringify(specifier)})`,
];

// The compile cache off: every run compiles as a first start would (and as `node -e 0` does).
const COLD = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" };

/** One measured start: milliseconds from spawn to done. */
type Run = () => Promise<number>;

function processRun(args: readonly string[]): Run {
  return async () => {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, { env: COLD, encoding: "utf8" });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${run.stderr}`);
    return ms;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A daemon serving one fast server, kept warm by an attached session, and a run that starts a new
 * `attach` and times it to the answer of its first tools/list.
 */
async function warmDaemon(): Promise<{ run: Run; close: () => void }> {
  const home = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-start-"));
  const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-start-run-"));
  // As a host runs it: its compile cache (Node 22.1+) in a private folder of this run, warm after the first.
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, MCP_BRIDGE_CACHE_DIR: join(home, "cache") };
  const config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [SERVER] } } }),
  );
  const close = () => {
    keeper?.child.kill("SIGKILL");
    spawnSync(process.execPath, [CLI, "daemon", "stop", "-c", config], { env, cwd: home, timeout: 20_000 });
    rmSync(home, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
  };
  let keeper: Session | undefined;
  try {
    keeper = openSession(config, env, home);
    await initialized(keeper);
    const deadline = Date.now() + 60_000;
    while ((await toolsList(keeper)).length === 0) {
      if (Date.now() > deadline) throw new Error("start bench: the daemon's server did not come up");
      await sleep(100);
    }
  } catch (error) {
    close();
    throw error;
  }
  const run: Run = async () => {
    const started = process.hrtime.bigint();
    const session = openSession(config, env, home);
    const answered = session.answer(2);
    session.send(INIT);
    session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    session.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const tools = await answered;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    session.child.stdin?.end();
    await new Promise((resolve) => session.child.once("close", resolve));
    if (tools.length === 0) throw new Error("start bench: attach listed no tools on a warm daemon");
    return ms;
  };
  return { run, close };
}

/** Median milliseconds of each run, run alternately `rounds` times (one warm-up round first). */
async function alternating(runs: readonly Run[], rounds: number): Promise<number[]> {
  const times = runs.map((): number[] => []);
  for (let round = -1; round < rounds; round++) {
    for (const [index, run] of runs.entries()) {
      const ms = await run();
      if (round >= 0) times[index]?.push(ms);
    }
  }
  return times.map((each) => percentile(each, 0.5));
}

export async function startFigures(quick: boolean): Promise<Figure[]> {
  const rounds = quick ? 7 : 21;
  const daemon = await warmDaemon();
  let medians: number[];
  try {
    medians = await alternating(
      [
        processRun(["-e", "0"]),
        processRun([CLI, "--version"]),
        processRun([CLI, "--help"]),
        processRun(importOf("@modelcontextprotocol/client")),
        processRun(importOf(LIBRARY)),
        daemon.run,
      ],
      rounds,
    );
  } finally {
    daemon.close();
  }
  const [node = 0, version = 0, help = 0, sdk = 0, library = 0, attach = 0] = medians;
  const detail = `median of ${rounds} alternating runs (node -e 0, --version, --help, the two imports, attach)`;
  return [
    {
      name: "start_cli_version",
      unit: "ms",
      bridge: version,
      baseline: node,
      baselineName: "node -e 0",
      detail,
      target: { text: "<= 1.3x node -e 0", met: version <= 1.3 * node },
    },
    {
      name: "start_cli_help",
      unit: "ms",
      bridge: help,
      baseline: node,
      baselineName: "node -e 0",
      detail,
      target: { text: "<= 1.3x node -e 0", met: help <= 1.3 * node },
    },
    {
      name: "start_import_library",
      unit: "ms",
      bridge: library,
      baseline: sdk,
      baselineName: "import SDK client",
      detail: `${detail}; bare node ${fmt(node)} ms`,
      target: { text: "<= 1.2x the SDK client's import", met: library <= 1.2 * sdk },
    },
    {
      name: "start_attach_first_tools_list",
      unit: "ms",
      bridge: attach,
      baseline: node,
      baselineName: "node -e 0",
      detail: `${detail}; a new attach on a warm daemon, spawn to its first tools/list answer: node -e 0 + ${fmt(attach - node)} ms`,
      target: { text: "<= node -e 0 + 60 ms", met: attach - node <= 60 },
    },
  ];
}

// Run alone: `node dist/bench/start.js [--quick]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const figure of await startFigures(process.argv.includes("--quick"))) {
    process.stdout.write(
      `${figure.name}: bridge=${fmt(figure.bridge)} ${figure.unit}, baseline=${fmt(figure.baseline)} ${figure.unit} (${figure.baselineName}), ratio=${fmt(figure.bridge / figure.baseline, 2)}, target ${figure.target?.text}: ${figure.target?.met ? "met" : "missed"}\n`,
    );
  }
}
