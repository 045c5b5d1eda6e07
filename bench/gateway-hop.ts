/**
 * The gateway's hop (`mcp-bridge serve`) against the same calls made without it, in one run:
 *
 * - gateway CPU per call (user + system of the gateway process, from /proc/PID/stat) over stdio and
 *   HTTP at 1 in flight; the upstream benchmark server's own CPU per call is the baseline;
 * - p50 through `serve --stdio` against a direct stdio call, and through `serve --http` (a 2025-11-25
 *   session, the fast path) against the SDK's own session HTTP server (the benchmark server);
 * - throughput at 32 in flight through `serve --stdio` against direct.
 *
 * Each both for the first 500 calls of a fresh gateway (`first`) and after a warm-up (`steady`).
 * `node dist/bench/gateway-hop.js [--quick]` prints the figures as JSON lines; `MCP_BRIDGE_GATEWAY_FAST_PATH=0`
 * in the environment measures the SDK path instead; `MCP_BRIDGE_BENCH_NODE_ARGS` (space-separated) passes
 * node flags to the gateway child, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof-hop`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { FIRST_CALLS } from "./first-calls.js";
import { ownSignalFetch } from "./own-signal-fetch.js";
import { type Figure, fmt, measureSequential, measureThroughput, percentile } from "./stats.js";

const SERVER = fileURLToPath(new URL("./servers/bench-server.js", import.meta.url));
const CLI = resolve(fileURLToPath(new URL(".", import.meta.url)), "../src/apps/cli/bin.js");

/** Node flags for the gateway child (profiling), from `MCP_BRIDGE_BENCH_NODE_ARGS`. */
const GATEWAY_NODE_ARGS = (process.env.MCP_BRIDGE_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

/** CPU time (user + system) of a process so far, in µs; clock ticks are 10 ms on Linux. */
export function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export interface Side {
  readonly call: (i: number) => Promise<unknown>;
  /** The process whose CPU is measured (the gateway; the server itself when direct). */
  readonly pid: number;
  close(): Promise<void>;
}

function config(): string {
  const path = join(tmpdir(), `mcp-bridge-hop-${process.pid}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: { b: { command: process.execPath, args: [SERVER] } } }));
  return path;
}

/** The served `add` tool: a gateway lists it once its upstream server is up (bounded wait). */
async function addTool(client: Client): Promise<string> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name.endsWith("add"));
    if (tool) return tool.name;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no add tool within 60 s");
}

async function clientSide(client: Client, pid: number, stop: () => void = () => {}): Promise<Side> {
  const name = await addTool(client);
  return {
    call: (i) => client.callTool({ name, arguments: { a: i, b: 1 } }),
    pid,
    close: async () => {
      await client.close();
      stop();
    },
  };
}

export async function stdioSide(gateway: boolean): Promise<Side> {
  const args = gateway ? [...GATEWAY_NODE_ARGS, CLI, "serve", "--stdio", "-c", config()] : [SERVER];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    stderr: "ignore",
    env: process.env as Record<string, string>,
  });
  const client = new Client({ name: "hop", version: "1" });
  await client.connect(transport);
  return clientSide(client, transport.pid ?? 0);
}

async function httpChild(args: string[], marker: RegExp): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const lines = createInterface({
    input: (marker.source.includes("gateway") ? child.stderr : child.stdout) as NodeJS.ReadableStream,
  });
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error("no URL within 60 s")), 60_000);
    lines.on("line", (line) => {
      const found = marker.exec(line);
      if (found?.[1]) {
        clearTimeout(timer);
        done(found[1]);
      }
    });
  });
  return { url, child };
}

/** The protocol era of an HTTP client: a 2025-11-25 session, or stateless 2026-07-28 requests. */
type Era = "session" | "modern";

export async function httpSide(gateway: boolean, era: Era = "session"): Promise<Side> {
  const { url, child } = gateway
    ? await httpChild(
        [...GATEWAY_NODE_ARGS, CLI, "serve", "--http", "127.0.0.1:0", "-c", config()],
        /gateway listening on (\S+)/,
      )
    : await httpChild([SERVER, "--http", ...(era === "modern" ? ["--modern"] : [])], /^LISTENING (\S+)/);
  // A 2025-11-25 session, as most hosts open today; or a 2026-07-28 client (no session, no handshake).
  const mode = era === "modern" ? { pin: "2026-07-28" } : "legacy";
  const client = new Client({ name: "hop", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: ownSignalFetch }));
  return clientSide(client, child.pid ?? 0, () => child.kill("SIGTERM"));
}

interface Measured {
  p50Us: number;
  cpuUs: number;
}

async function sequential(side: Side, count: number, warmup: number): Promise<Measured> {
  for (let i = 0; i < warmup; i++) await side.call(i);
  const before = cpuOf(side.pid);
  const sample = await measureSequential(count, 0, side.call);
  return { p50Us: percentile(sample.wallUs, 0.5), cpuUs: (cpuOf(side.pid) - before) / count };
}

/** First calls and steady state of one side, each in a fresh process for `first`. */
async function phases(open: () => Promise<Side>, steadyCalls: number, warmup: number) {
  const fresh = await open();
  const first = await sequential(fresh, FIRST_CALLS, 0);
  const steady = await sequential(fresh, steadyCalls, warmup);
  await fresh.close();
  return { first, steady };
}

export async function gatewayHopFigures(quick: boolean): Promise<Figure[]> {
  const steadyCalls = quick ? 1000 : 4000;
  const warmup = quick ? 500 : 2000;
  const figures: Figure[] = [];
  const direct = await phases(() => stdioSide(false), steadyCalls, warmup);
  const viaStdio = await phases(() => stdioSide(true), steadyCalls, warmup);
  const sdkHttp = await phases(() => httpSide(false), steadyCalls, warmup);
  const viaHttp = await phases(() => httpSide(true), steadyCalls, warmup);
  const sdkModern = await phases(() => httpSide(false, "modern"), steadyCalls, warmup);
  const viaModern = await phases(() => httpSide(true, "modern"), steadyCalls, warmup);
  for (const phase of ["first", "steady"] as const) {
    figures.push({
      name: "gateway_cpu_per_call_stdio",
      phase,
      unit: "us",
      bridge: viaStdio[phase].cpuUs,
      baseline: direct[phase].cpuUs,
      baselineName: "the upstream server's own CPU per call",
      detail: "serve --stdio process, 1 in flight",
      target: { text: "<= 120 us", met: viaStdio[phase].cpuUs <= 120 },
    });
    figures.push({
      name: "gateway_cpu_per_call_http",
      phase,
      unit: "us",
      bridge: viaHttp[phase].cpuUs,
      baseline: sdkHttp[phase].cpuUs,
      baselineName: "the SDK's session HTTP server's CPU per call",
      detail: "serve --http process, 2025-11-25 session, 1 in flight",
      target: { text: "<= 300 us", met: viaHttp[phase].cpuUs <= 300 },
    });
    const addedStdio = viaStdio[phase].p50Us - direct[phase].p50Us;
    figures.push({
      name: "gateway_p50_stdio",
      phase,
      unit: "us",
      bridge: viaStdio[phase].p50Us,
      baseline: direct[phase].p50Us,
      baselineName: "direct stdio call",
      detail: `added ${fmt(addedStdio)} us`,
      target: { text: "added <= 100 us", met: addedStdio <= 100 },
    });
    const addedHttp = viaHttp[phase].p50Us - sdkHttp[phase].p50Us;
    figures.push({
      name: "gateway_p50_http",
      phase,
      unit: "us",
      bridge: viaHttp[phase].p50Us,
      baseline: sdkHttp[phase].p50Us,
      baselineName: "the SDK's session HTTP server, direct",
      detail: `added ${fmt(addedHttp)} us (gateway over a stdio upstream)`,
      target: { text: "added <= 150 us", met: addedHttp <= 150 },
    });
    figures.push({
      name: "gateway_cpu_per_call_http_2026",
      phase,
      unit: "us",
      bridge: viaModern[phase].cpuUs,
      baseline: sdkModern[phase].cpuUs,
      baselineName: "the SDK's stateless 2026-07-28 HTTP server's CPU per call",
      detail: "serve --http process, stateless 2026-07-28 client, 1 in flight",
      target: { text: "<= 300 us", met: viaModern[phase].cpuUs <= 300 },
    });
    const addedModern = viaModern[phase].p50Us - sdkModern[phase].p50Us;
    figures.push({
      name: "gateway_p50_http_2026",
      phase,
      unit: "us",
      bridge: viaModern[phase].p50Us,
      baseline: sdkModern[phase].p50Us,
      baselineName: "the SDK's stateless 2026-07-28 HTTP server, direct",
      detail: `added ${fmt(addedModern)} us (gateway over a stdio upstream)`,
      target: { text: "added <= 150 us", met: addedModern <= 150 },
    });
  }
  // Throughput at 32 in flight, steady state, through serve --stdio against direct.
  const throughputCalls = quick ? 2000 : 8000;
  const rates: Record<string, number> = {};
  for (const [label, open] of [
    ["direct", () => stdioSide(false)],
    ["gateway", () => stdioSide(true)],
  ] as const) {
    const side = await open();
    await measureThroughput(warmup, 32, side.call);
    rates[label] = (await measureThroughput(throughputCalls, 32, side.call)).perSecond;
    await side.close();
  }
  const ratio = (rates.gateway ?? 0) / (rates.direct ?? 1);
  figures.push({
    name: "gateway_throughput_x32_stdio",
    phase: "steady",
    unit: "calls/s",
    bridge: rates.gateway ?? 0,
    baseline: rates.direct ?? 0,
    baselineName: "direct stdio",
    detail: "32 in flight through serve --stdio",
    target: { text: ">= 0.9x direct", met: ratio >= 0.9 },
  });
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const figure of await gatewayHopFigures(process.argv.includes("--quick"))) {
    console.log(JSON.stringify({ ...figure, ratio: Number(fmt(figure.bridge / figure.baseline, 2)) }));
  }
  process.exit(0);
}
