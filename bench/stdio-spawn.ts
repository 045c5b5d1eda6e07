/**
 * What one stdio server costs to start and to keep (issue 30, item 3), mcp-bridge against the plain SDK
 * client (`StdioClientTransport`) on the same bench server, each side in a fresh host process of its
 * own (so the first start pays for whatever a host starts once, such as the process watchdog):
 *   spawn to initialized: from just before the start to the answer of the first tools/list (the bridge
 *   lists tools as part of its start), the host's first start and its second, medians of alternating runs;
 *   memory per server: ten servers connected, the median USS (Private_Clean + Private_Dirty of
 *   /proc/PID/smaps_rollup) of a server plus a tenth of the USS of every other process below the host
 *   (a helper such as the watchdog).
 * `node dist/bench/stdio-spawn.js [--quick]` runs this section alone (Linux only: /proc).
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { descendants, ussKiB } from "./proc-memory.js";
import { type Figure, fmt, percentile } from "./stats.js";

const SELF = fileURLToPath(import.meta.url);
const SERVER = fileURLToPath(new URL("servers/bench-server.js", import.meta.url));

type Side = "sdk" | "bridge";

interface HostReport {
  readonly firstMs: number;
  readonly secondMs: number;
  /** USS of each server process. */
  readonly serverKiB: readonly number[];
  /** USS of every other process below the host (the watchdog), summed. */
  readonly otherKiB: number;
  readonly processes: number;
}

/** One side's starter: resolves once the server answered tools/list; the result closes it. */
async function starter(side: Side): Promise<(count: number) => Promise<() => Promise<void>>> {
  if (side === "sdk") {
    const { Client } = await import("@modelcontextprotocol/client");
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    return async (count) => {
      const clients = await Promise.all(
        Array.from({ length: count }, async () => {
          const client = new Client({ name: "bench-baseline", version: "1" });
          await client.connect(
            new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" }),
          );
          await client.listTools();
          return client;
        }),
      );
      return async () => {
        await Promise.all(clients.map((client) => client.close()));
      };
    };
  }
  const { startBridge } = await import("../src/bridge/bridge.js");
  return async (count) => {
    const servers = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`s${i}`, { command: process.execPath, args: [SERVER] }]),
    );
    const bridge = await startBridge({ servers, catalogCache: false });
    const states = bridge.servers().map((server) => server.state);
    if (states.some((state) => state !== "connected")) throw new Error(`not connected: ${states.join(", ")}`);
    return () => bridge.close();
  };
}

/** The host side: run in a fresh process, prints one JSON report. */
async function host(side: Side): Promise<void> {
  const start = await starter(side);
  const timed = async () => {
    const started = performance.now();
    const stop = await start(1);
    const ms = performance.now() - started;
    await stop();
    return ms;
  };
  const firstMs = await timed();
  const secondMs = await timed();
  const stop = await start(10);
  const below = descendants(process.pid);
  const isServer = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(SERVER);
    } catch {
      return false;
    }
  };
  const serverKiB = below.filter(isServer).map(ussKiB);
  const otherKiB = below.filter((pid) => !isServer(pid)).reduce((sum, pid) => sum + ussKiB(pid), 0);
  await stop();
  const report: HostReport = { firstMs, secondMs, serverKiB, otherKiB, processes: below.length };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

function runHost(side: Side): HostReport {
  const run = spawnSync(process.execPath, [SELF, "--host", side], { encoding: "utf8", timeout: 120_000 });
  if (run.status !== 0) throw new Error(`the ${side} host failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").pop() as string) as HostReport;
}

export function stdioSpawnFigures(quick: boolean): Figure[] {
  if (process.platform !== "linux") return [];
  const rounds = quick ? 3 : 7;
  const reports: Record<Side, HostReport[]> = { sdk: [], bridge: [] };
  // Alternated, so a machine that slows down during the run weighs on both alike.
  for (let round = 0; round < rounds; round++) {
    reports.sdk.push(runHost("sdk"));
    reports.bridge.push(runHost("bridge"));
  }
  const median = (side: Side, pick: (report: HostReport) => number) =>
    percentile(reports[side].map(pick), 0.5);
  const first = { bridge: median("bridge", (r) => r.firstMs), sdk: median("sdk", (r) => r.firstMs) };
  const second = { bridge: median("bridge", (r) => r.secondMs), sdk: median("sdk", (r) => r.secondMs) };
  // A server's USS varies by a few MiB with when its last GC ran: the median server, plus a tenth of
  // what else runs below the host, is steadier than a sum of ten.
  const perServerKiB = (side: Side) =>
    percentile(
      reports[side].flatMap((report) => report.serverKiB),
      0.5,
    ) +
    median(side, (report) => report.otherKiB) / 10;
  const perServer = { bridge: perServerKiB("bridge") / 1024, sdk: perServerKiB("sdk") / 1024 };
  const processes = { bridge: median("bridge", (r) => r.processes), sdk: median("sdk", (r) => r.processes) };
  const detail = `fresh host per side, median of ${rounds} alternating runs`;
  return [
    {
      name: "stdio_spawn_to_initialized_first",
      unit: "ms",
      bridge: first.bridge,
      baseline: first.sdk,
      baselineName: "sdk StdioClientTransport",
      detail: `the host's first server (connect + tools/list); ${detail}`,
      target: { text: "<= 1.2x sdk", met: first.bridge / first.sdk <= 1.2 },
    },
    {
      name: "stdio_spawn_to_initialized_second",
      unit: "ms",
      bridge: second.bridge,
      baseline: second.sdk,
      baselineName: "sdk StdioClientTransport",
      detail: `the host's second server; ${detail}`,
      target: { text: "<= 1.2x sdk", met: second.bridge / second.sdk <= 1.2 },
    },
    {
      name: "stdio_uss_per_server_10_servers",
      unit: "MiB",
      bridge: perServer.bridge,
      baseline: perServer.sdk,
      baselineName: "sdk StdioClientTransport",
      detail: `median USS of a server + (USS of the other processes below the host) / 10 (${processes.bridge} processes vs ${processes.sdk}); ${detail}; +${fmt(perServer.bridge - perServer.sdk, 2)} MiB per server`,
      target: { text: "within 1 MiB of sdk", met: perServer.bridge - perServer.sdk <= 1 },
    },
  ];
}

const hostIndex = process.argv.indexOf("--host");
if (hostIndex >= 0) await host(process.argv[hostIndex + 1] as Side);
else if (process.argv[1]?.endsWith("stdio-spawn.js")) {
  for (const figure of stdioSpawnFigures(process.argv.includes("--quick")))
    console.log(
      `${figure.name}: bridge=${fmt(figure.bridge, 2)} ${figure.unit}, sdk=${fmt(figure.baseline, 2)} ${figure.unit}, ratio=${fmt(figure.bridge / figure.baseline, 3)} (${figure.detail}) target ${figure.target?.met ? "MET" : "MISSED"}`,
    );
}
