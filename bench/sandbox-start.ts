/**
 * Sandbox start overhead: spawn to initialized (handshake and first tools/list) of one stdio server,
 * sandboxed with bubblewrap against the same server unsandboxed, median of a few starts each. Skipped
 * (no figure) where bwrap is absent or the platform is not Linux.
 */
import { existsSync } from "node:fs";
import { startBridge } from "../src/bridge/bridge.js";
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
  return [
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
