/**
 * Sandbox start overhead: spawn to initialized (handshake and first tools/list) of one stdio server,
 * sandboxed with bubblewrap against the same server unsandboxed, median of a few starts each. Skipped
 * (no figure) where bwrap is absent or the platform is not Linux.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { startBridge } from "../src/bridge/bridge.js";
import { sandboxedSpec } from "../src/transport/sandbox/sandboxed-spawn.js";
import { type Figure, percentile } from "./stats.js";

async function startMs(server: string, sandbox: boolean): Promise<number> {
  const started = performance.now();
  const bridge = await startBridge({
    servers: { s: { command: process.execPath, args: [server], sandbox } },
    catalogCache: false,
  });
  const elapsed = performance.now() - started;
  const state = bridge.server("s")?.state;
  await bridge.close();
  if (state !== "connected")
    throw new Error(`the bench server did not start (sandbox: ${sandbox}): ${state}`);
  return elapsed;
}

/** Spawn to exit of `command`, ms. */
function runMs(command: string, args: readonly string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { env, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - started));
  });
}

/**
 * The sandbox's own cost, without a server's start time (hundreds of ms of node, whose noise on a
 * busy machine hides a few ms): planning the sandbox (host facts, mounts) plus bwrap up to running
 * `/bin/true`, against spawning `/bin/true` plainly.
 */
async function setupMs(server: string): Promise<{ boxed: number; plain: number }> {
  const policy = { read: [], write: [], network: false, env: [] };
  const spec = { command: "/bin/true", args: [server], env: {} };
  const started = performance.now();
  const boxed = await sandboxedSpec(spec, { server: "s", policy, configured: {}, hostEnv: process.env });
  const planned = performance.now() - started;
  return {
    boxed: planned + (await runMs(boxed.command, boxed.args, { ...boxed.env })),
    plain: await runMs("/bin/true", [server], {}),
  };
}

export async function sandboxStartFigures(server: string, quick: boolean): Promise<Figure[]> {
  if (process.platform !== "linux" || !["/usr/bin/bwrap", "/bin/bwrap"].some((path) => existsSync(path)))
    return [];
  const runs = quick ? 3 : 7;
  const plain: number[] = [];
  const boxed: number[] = [];
  // Alternated, so a machine that slows down during the run weighs on both alike.
  for (let i = 0; i < runs; i++) {
    plain.push(await startMs(server, false));
    boxed.push(await startMs(server, true));
  }
  const median = (values: number[]) => percentile(values, 0.5);
  const setup = { boxed: [] as number[], plain: [] as number[] };
  for (let i = 0; i < runs * 3; i++) {
    const { boxed: one, plain: other } = await setupMs(server);
    setup.boxed.push(one);
    setup.plain.push(other);
  }
  return [
    {
      name: "sandbox setup per start (plan + bwrap to exec, median)",
      unit: "ms",
      bridge: median(setup.boxed),
      baseline: median(setup.plain),
      baselineName: "plain spawn of the same program",
      detail: `${runs * 3} runs; overhead ${(median(setup.boxed) - median(setup.plain)).toFixed(1)} ms`,
    },
    {
      name: "sandboxed stdio start (spawn to initialized, median)",
      unit: "ms",
      bridge: median(boxed),
      baseline: median(plain),
      baselineName: "same server unsandboxed",
      detail: `${runs} starts each; overhead ${(median(boxed) - median(plain)).toFixed(1)} ms`,
    },
  ];
}

// `node dist/bench/sandbox-start.js`: this section alone.
if (process.argv[1]?.endsWith("sandbox-start.js")) {
  const { fileURLToPath } = await import("node:url");
  const server = fileURLToPath(new URL("servers/bench-server.js", import.meta.url));
  for (const figure of await sandboxStartFigures(server, process.argv.includes("--quick")))
    console.log(
      `${figure.name}: sandboxed=${figure.bridge.toFixed(1)} ms, plain=${figure.baseline.toFixed(1)} ms (${figure.detail})`,
    );
}
