/**
 * How fast mcp-bridge starts, against what it cannot go below, measured in the same run with runs
 * alternated (hyperfine-style: one run of each command in turn, N rounds, medians compared), so a
 * machine busy with something else slows both sides alike:
 *   `mcp-bridge --version` and `--help` against `node -e 0`;
 *   `import "mcp-bridge"` against `import "@modelcontextprotocol/client"` (the SDK client it wraps).
 * `node dist/bench/start.js [--quick]` runs this section alone.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Figure, fmt, percentile } from "./stats.js";

const CLI = fileURLToPath(new URL("../src/apps/cli/bin.js", import.meta.url));
const LIBRARY = new URL("../src/index.js", import.meta.url).href;
const importOf = (specifier: string) => [
  "--input-type=module",
  "-e",
  `await import(${JSON.stringify(specifier)})`,
];

/** Median wall milliseconds of each command, run alternately `rounds` times (one warm-up round first). */
function alternating(commands: readonly (readonly string[])[], rounds: number): number[] {
  const times = commands.map((): number[] => []);
  // The compile cache off: every run compiles as a first start would (and as `node -e 0` does).
  const env = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" };
  for (let round = -1; round < rounds; round++) {
    commands.forEach((args, index) => {
      const started = process.hrtime.bigint();
      const run = spawnSync(process.execPath, args, { env, encoding: "utf8" });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (run.status !== 0 && !args.includes("--help"))
        throw new Error(`node ${args.join(" ")} failed: ${run.stderr}`);
      if (round >= 0) times[index]?.push(ms);
    });
  }
  return times.map((each) => percentile(each, 0.5));
}

export function startFigures(quick: boolean): Figure[] {
  const rounds = quick ? 7 : 21;
  const [node = 0, version = 0, help = 0] = alternating(
    [
      ["-e", "0"],
      [CLI, "--version"],
      [CLI, "--help"],
    ],
    rounds,
  );
  const [sdk = 0, library = 0] = alternating(
    [importOf("@modelcontextprotocol/client"), importOf(LIBRARY)],
    rounds,
  );
  const detail = `median of ${rounds} alternating runs`;
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
  ];
}

// Run alone: `node dist/bench/start.js [--quick]`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const figure of startFigures(process.argv.includes("--quick"))) {
    process.stdout.write(
      `${figure.name}: bridge=${fmt(figure.bridge)} ${figure.unit}, baseline=${fmt(figure.baseline)} ${figure.unit} (${figure.baselineName}), ratio=${fmt(figure.bridge / figure.baseline, 2)}, target ${figure.target?.text}: ${figure.target?.met ? "met" : "missed"}\n`,
    );
  }
}
