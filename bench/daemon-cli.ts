import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Figure, percentile } from "./stats.js";

const CLI = fileURLToPath(new URL("../src/apps/cli/bin.js", import.meta.url));
const CALCULATOR = fileURLToPath(new URL("../examples/servers/calculator.js", import.meta.url));

/** Wall milliseconds of each of `count` runs of `node args...` (exit 0 required). */
function wallMs(count: number, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): number[] {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, { env, cwd, encoding: "utf8" });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (run.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${run.stderr}`);
  }
  return times;
}

/**
 * `mcp-bridge call` of a trivial tool as a user runs it (a new node process each time), through a warm
 * daemon against the same command with --no-daemon; node's own start-up (`node -e 0`) in the detail.
 */
export async function daemonCliFigures(quick: boolean): Promise<Figure[]> {
  const home = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-daemon-"));
  const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-run-"));
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, NO_COLOR: "1" };
  const config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { calc: { command: process.execPath, args: [CALCULATOR] } } }),
  );
  const count = quick ? 10 : 20;
  const call = [CLI, "call", "calc/add", "a=2", "b=3", "-c", config];
  try {
    const node = percentile(wallMs(count, ["-e", "0"], env, home), 0.5);
    const cold = percentile(wallMs(count, [...call, "--no-daemon"], env, home), 0.5);
    wallMs(1, [CLI, "daemon", "start", "-c", config], env, home);
    const warm = percentile(wallMs(count, call, env, home), 0.5);
    return [
      {
        name: "cli_call_via_daemon",
        unit: "ms",
        bridge: warm,
        baseline: cold,
        baselineName: "same call --no-daemon",
        detail: `p50 of ${count} runs of \`node bin.js call calc/add\`; bare \`node -e 0\` p50 ${node.toFixed(1)} ms`,
        target: { text: "<= 100 ms wall", met: warm <= 100 },
      },
    ];
  } finally {
    spawnSync(process.execPath, [CLI, "daemon", "stop", "-c", config], { env, cwd: home });
    rmSync(home, { recursive: true, force: true });
    rmSync(runtime, { recursive: true, force: true });
  }
}
