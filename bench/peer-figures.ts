/**
 * The peers section of `npm run bench`: warm-call latency and 10-server startup against each peer
 * library, and client CPU per warm stdio call of every client measured alike (see client-cpu.ts).
 */
import { startBridge } from "../src/bridge/bridge.js";
import { type ClientCpu, measureClientCpu } from "./client-cpu.js";
import { measurePeers, preparePeers } from "./peers.js";
import { type Figure, fmt, measureSequential, percentile } from "./stats.js";

const stdioServers = (server: string, count: number) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`s${i}`, { command: process.execPath, args: [server] }]),
  );

/** A peer's name as part of a figure name: `@mastra/mcp` -> `mastra_mcp`, `sdk-v2` -> `sdk_v2`. */
const slug = (name: string) => name.replace(/[^a-z0-9]+/gi, "_").replace(/^_|_$/g, "");

export async function peerFigures(
  SERVER: string,
  quick: boolean,
  root: string,
): Promise<{ figures: Figure[]; notes: string[] }> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  const record = (figure: Figure) => figures.push(figure);
  const count = quick ? 300 : 2000;
  const bridge = await startBridge({
    servers: { b: stdioServers(SERVER, 1).s0 as Record<string, unknown> },
    env: process.env,
  });
  const ours = await measureSequential(count, 100, (i) => bridge.call("mcp_b_add", { a: i, b: 1 }));
  await bridge.close();
  // Cache off: with the catalog cache a second run resolves before any server is up, while every
  // peer connects and lists tools on each start, so the cached figure would compare nothing alike.
  const started = performance.now();
  const ten = await startBridge({ servers: stdioServers(SERVER, 10), env: process.env, catalogCache: false });
  const ourStartup = performance.now() - started;
  await ten.close();
  const ourP50 = percentile(ours.wallUs, 0.5);
  const { dir, installError } = preparePeers(root);
  if (installError) notes.push(`peers: npm install in ${dir} failed (${installError})`);
  for (const peer of measurePeers(dir, SERVER, count)) {
    if (peer.error || peer.warmP50Us === undefined) {
      notes.push(`peer ${peer.peer}: not measured (${peer.error ?? "no figures"})`);
      continue;
    }
    const faster = (figure: string, unit: string, ours: number, theirs: number) =>
      record({
        name: `${figure}_${peer.peer.replace(/[^a-z]+/gi, "_")}`,
        unit,
        bridge: ours,
        baseline: theirs,
        baselineName: peer.peer,
        target: { text: "faster than the peer", met: ours < theirs },
      });
    // Latency only: client CPU is compared below, every client in its own child process.
    faster("peer_warm_call", "us", ourP50, peer.warmP50Us);
    if (peer.startup10Ms !== undefined) faster("peer_startup_10", "ms", ourStartup, peer.startup10Ms);
  }
  clientCpu(root, dir, SERVER, quick, record, notes);
  return { figures, notes };
}

const passes = (m: ClientCpu) => (m.passes ?? []).map((p) => fmt(p)).join("/");

/** Client CPU per warm stdio call at 1 and 8 in flight, every client (ours too) in a fresh child. */
function clientCpu(
  root: string,
  dir: string,
  SERVER: string,
  quick: boolean,
  record: (figure: Figure) => void,
  notes: string[],
): void {
  const measured = measureClientCpu(root, dir, SERVER, {
    // Long rounds: a round must span many young collections (and a full one now and then) for the
    // figure to include each client's real GC cost, which was the largest difference between clients.
    count: quick ? 2000 : 10_000,
    rounds: 5,
    warmup: 2000,
    inFlight: [1, 8],
  });
  const failed = new Set<string>();
  for (const m of measured)
    if (m.error && !failed.has(m.client)) {
      failed.add(m.client);
      notes.push(`client cpu ${m.client}: not measured (${m.error})`);
    }
  for (const peer of measured) {
    const ours = measured.find((m) => m.client === "mcp-bridge" && m.inFlight === peer.inFlight);
    if (peer.client === "mcp-bridge" || ours?.cpuUsPerCall === undefined || peer.cpuUsPerCall === undefined)
      continue;
    record({
      name: `peer_cpu_${peer.inFlight}_in_flight_${slug(peer.client)}`,
      unit: "us",
      bridge: ours.cpuUsPerCall,
      baseline: peer.cpuUsPerCall,
      baselineName: peer.client,
      detail: `median of 3 passes (${passes(ours)} vs ${passes(peer)} us); ${fmt(ours.callsPerSecond ?? Number.NaN, 0)} vs ${fmt(peer.callsPerSecond ?? Number.NaN, 0)} calls/s`,
      target: { text: "<= peer", met: ours.cpuUsPerCall <= peer.cpuUsPerCall },
    });
  }
}
