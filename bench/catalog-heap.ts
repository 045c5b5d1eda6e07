/**
 * The heap a 2,000-tool catalog keeps (issue 30, item 3): mcp-bridge (`startBridge`, its tool list held)
 * against the plain SDK client (`connect` + `listTools`, the result held), one call made on each, each
 * side in a fresh `node --expose-gc` process, heap used after full collections. Two figures: the whole
 * heap (what the host pays, module code included) and the part the catalog adds (heap after the start
 * minus heap after the imports). Median of alternating runs.
 * `node dist/bench/catalog-heap.js [--quick]` runs this section alone.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Figure, fmt, percentile } from "./stats.js";

const SELF = fileURLToPath(import.meta.url);
const SERVER = fileURLToPath(new URL("servers/bench-server.js", import.meta.url));
const TOOLS = 2000;

type Side = "sdk" | "bridge";

interface HeapReport {
  readonly importedMiB: number;
  readonly heldMiB: number;
}

const MiB = 1024 * 1024;

async function collectedHeap(): Promise<number> {
  for (let round = 0; round < 4; round++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return process.memoryUsage().heapUsed / MiB;
}

/** The measuring process: prints one JSON report. */
async function host(side: Side): Promise<void> {
  const args = [SERVER, "--tools", String(TOOLS)];
  let held: unknown;
  let close: () => Promise<unknown>;
  let importedMiB: number;
  if (side === "sdk") {
    const { Client } = await import("@modelcontextprotocol/client");
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    importedMiB = await collectedHeap();
    const client = new Client({ name: "bench-baseline", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
    held = await client.listTools();
    await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    close = () => client.close();
  } else {
    const { startBridge } = await import("../src/index.js");
    // The entry loads the runtime on the first start: loaded here, so that "added" is the catalog's.
    await import("../src/bridge/bridge.js");
    importedMiB = await collectedHeap();
    const bridge = await startBridge({
      servers: { b: { command: process.execPath, args } },
      catalogCache: false,
    });
    held = bridge.tools();
    await bridge.call("b/add", { a: 1, b: 2 });
    close = () => bridge.close();
  }
  const heldMiB = await collectedHeap();
  if (!held) throw new Error("nothing listed");
  await close();
  process.stdout.write(`${JSON.stringify({ importedMiB, heldMiB } satisfies HeapReport)}\n`);
  process.exit(0);
}

function runHost(side: Side): HeapReport {
  const run = spawnSync(process.execPath, ["--expose-gc", SELF, "--host", side], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`the ${side} host failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").pop() as string) as HeapReport;
}

export function catalogHeapFigures(quick: boolean): Figure[] {
  const rounds = quick ? 3 : 5;
  const reports: Record<Side, HeapReport[]> = { sdk: [], bridge: [] };
  for (let round = 0; round < rounds; round++) {
    reports.sdk.push(runHost("sdk"));
    reports.bridge.push(runHost("bridge"));
  }
  const median = (side: Side, pick: (report: HeapReport) => number) =>
    percentile(reports[side].map(pick), 0.5);
  const held = { bridge: median("bridge", (r) => r.heldMiB), sdk: median("sdk", (r) => r.heldMiB) };
  const added = {
    bridge: median("bridge", (r) => r.heldMiB - r.importedMiB),
    sdk: median("sdk", (r) => r.heldMiB - r.importedMiB),
  };
  const detail = `fresh process per side, heap used after gc, median of ${rounds} alternating runs`;
  return [
    {
      name: "heap_2000_tool_catalog",
      unit: "MiB",
      bridge: held.bridge,
      baseline: held.sdk,
      baselineName: "sdk connect+listTools",
      detail: `whole heap with the catalog held and one call made; ${detail}`,
      target: { text: "<= 1.2x sdk", met: held.bridge / held.sdk <= 1.2 },
    },
    {
      name: "heap_2000_tool_catalog_added",
      unit: "MiB",
      bridge: added.bridge,
      baseline: added.sdk,
      baselineName: "sdk connect+listTools",
      detail: `heap after the start minus heap after the imports (${fmt(median("bridge", (r) => r.importedMiB))} vs ${fmt(median("sdk", (r) => r.importedMiB))} MiB); ${detail}`,
    },
  ];
}

const hostIndex = process.argv.indexOf("--host");
if (hostIndex >= 0) await host(process.argv[hostIndex + 1] as Side);
else if (process.argv[1]?.endsWith("catalog-heap.js")) {
  for (const figure of catalogHeapFigures(process.argv.includes("--quick")))
    console.log(
      `${figure.name}: bridge=${fmt(figure.bridge, 2)} ${figure.unit}, sdk=${fmt(figure.baseline, 2)} ${figure.unit}, ratio=${fmt(figure.bridge / figure.baseline, 3)} (${figure.detail})${figure.target ? ` target ${figure.target.met ? "MET" : "MISSED"}` : ""}`,
    );
}
