/**
 * `npm run bench [-- --quick] [--only SECTION,...]`: mcp-bridge against the plain official SDK client in the same run, on
 * the same benchmark server. Hand-written loops with process.hrtime.bigint() and process.cpuUsage()
 * rather than tinybench: we need per-call percentiles and client CPU per call, and a harness whose
 * own overhead is one hrtime read per call. Prints a table, then one `name: bridge=X unit,
 * baseline=Y unit, ratio=Z` line per figure, then whether each target holds.
 */
import { spawn } from "node:child_process";
import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { toOpenAITools } from "../src/adapters/openai.js";
import type { Bridge } from "../src/bridge/api.js";
import { startBridge } from "../src/bridge/bridge.js";
import { ToolRegistry } from "../src/registry/registry.js";
import { attachFleetFigures } from "./attach-fleet.js";
import { attachMemoryFigures } from "./attach-memory.js";
import { catalogCacheFigures } from "./catalog-cache.js";
import { catalogHeapFigures } from "./catalog-heap.js";
import { codeModeFigures } from "./code-mode.js";
import { hostileProgramFigures } from "./code-mode-hostile.js";
import { daemonCliFigures } from "./daemon-cli.js";
import { FIRST_CALLS, firstCallFigures } from "./first-calls.js";
import { gatewayHopFigures } from "./gateway-hop.js";
import { guardrailFigures } from "./guardrails.js";
import { peerFigures } from "./peer-figures.js";
import { pinCheckFigures } from "./pin-check.js";
import { policyFigures } from "./policy.js";
import { sandboxStartFigures } from "./sandbox-start.js";
import { serveStartupFigures } from "./serve-startup.js";
import { startFigures } from "./start.js";
import { type Figure, fmt, measureSequential, measureThroughput, percentile } from "./stats.js";
import { stdioSpawnFigures } from "./stdio-spawn.js";
import { toolSearchFigures } from "./tool-search.js";

const quick = process.argv.includes("--quick");
const here = dirname(fileURLToPath(import.meta.url));
const SERVER = join(here, "servers/bench-server.js");
const N = quick ? 300 : 2000;

const figures: Figure[] = [];
const notes: string[] = [];

function record(figure: Figure): void {
  figures.push(figure);
  process.stderr.write(`  ${figure.name}: done\n`);
}

async function plainStdioClient(args: string[] = []): Promise<Client> {
  const client = new Client({ name: "bench-baseline", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [SERVER, ...args], stderr: "ignore" }),
  );
  return client;
}

async function startHttpServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "ignore"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve) =>
    lines.on("line", (l) => l.startsWith("LISTENING ") && resolve(l.slice(10))),
  );
  return { url, stop: () => child.kill("SIGTERM") };
}

/**
 * The floor of a warm Streamable HTTP call: JSON-RPC written by hand over node:http with a keep-alive
 * agent, the response read as text, no validation. What no MCP client can go below.
 */
async function rawHttpCaller(
  url: string,
): Promise<{ call: (i: number) => Promise<unknown>; close: () => void }> {
  const agent = new Agent({ keepAlive: true });
  let session: string | undefined;
  const post = (message: unknown) =>
    new Promise<{ headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: "POST",
          agent,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve({ headers: res.headers, text }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(message));
    });
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "floor", version: "1" } },
  });
  session = init.headers["mcp-session-id"] as string;
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    call: async (i) => {
      const { text } = await post({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "add", arguments: { a: i, b: 1 } },
      });
      if (!text.includes('"result"')) throw new Error(`raw HTTP call failed: ${text.slice(0, 200)}`);
      return text;
    },
    close: () => agent.destroy(),
  };
}

const stdioServers = (count: number, args: string[] = []) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `s${i}`,
      { command: process.execPath, args: [SERVER, ...args] },
    ]),
  );

async function latency(kind: "stdio" | "http"): Promise<void> {
  const http = kind === "http" ? await startHttpServer() : undefined;
  const bridge = await startBridge({
    servers: http
      ? { b: { type: "http", url: http.url } }
      : { b: stdioServers(1).s0 as Record<string, unknown> },
    env: process.env,
  });
  const client = http ? new Client({ name: "bench-baseline", version: "1" }) : await plainStdioClient();
  if (http) await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  const warm = quick ? 100 : 2000;
  // Both warm up before either is measured (the benchmark server's JIT warms up too, which would
  // otherwise count against whichever client goes first); then the two alternate so that machine
  // noise hits both alike.
  await measureSequential(warm, 0, (i) => bridge.call("mcp_b_add", { a: i, b: 1 }));
  await measureSequential(warm, 0, (i) => client.callTool({ name: "add", arguments: { a: i, b: 1 } }));
  const ours = await measureSequential(N, 0, (i) => bridge.call("mcp_b_add", { a: i, b: 1 }));
  const theirs = await measureSequential(N, 0, (i) =>
    client.callTool({ name: "add", arguments: { a: i, b: 1 } }),
  );
  const ours2 = await measureSequential(N, 0, (i) => bridge.call("mcp_b_add", { a: i, b: 1 }));
  const theirs2 = await measureSequential(N, 0, (i) =>
    client.callTool({ name: "add", arguments: { a: i, b: 1 } }),
  );
  const ourWall = [...ours.wallUs, ...ours2.wallUs];
  const theirWall = [...theirs.wallUs, ...theirs2.wallUs];
  const p50 = percentile(ourWall, 0.5);
  const base50 = percentile(theirWall, 0.5);
  record({
    name: `warm_call_${kind}_p50`,
    unit: "us",
    bridge: p50,
    baseline: base50,
    baselineName: "sdk",
    phase: "steady",
    detail: `p99 ${fmt(percentile(ourWall, 0.99))} vs ${fmt(percentile(theirWall, 0.99))} us; run-to-run p50 ${fmt(percentile(ours.wallUs, 0.5))}/${fmt(percentile(ours2.wallUs, 0.5))} vs ${fmt(percentile(theirs.wallUs, 0.5))}/${fmt(percentile(theirs2.wallUs, 0.5))}`,
    // Over HTTP the bridge's own fetch (keep-alive node:http) should leave the SDK's default well behind.
    target:
      kind === "http"
        ? { text: "<= 0.70x sdk", met: p50 / base50 <= 0.7 }
        : { text: "<= 1.10x sdk", met: p50 / base50 <= 1.1 },
  });
  const cpu = (ours.cpuUs + ours2.cpuUs) / 2;
  const baseCpu = (theirs.cpuUs + theirs2.cpuUs) / 2;
  record({
    name: `warm_call_${kind}_cpu`,
    unit: "us/call",
    bridge: cpu,
    baseline: baseCpu,
    baselineName: "sdk",
    phase: "steady",
    ...(kind === "http" ? { target: { text: "<= 0.70x sdk", met: cpu / baseCpu <= 0.7 } } : {}),
  });
  if (http) {
    const raw = await rawHttpCaller(http.url);
    const floor = await measureSequential(N, warm, raw.call);
    raw.close();
    record({
      name: "warm_call_http_cpu_vs_node_http_floor",
      unit: "us/call",
      bridge: (ours.cpuUs + ours2.cpuUs) / 2,
      baseline: floor.cpuUs,
      baselineName: "node:http floor",
      detail: `p50 ${fmt(p50)} vs ${fmt(percentile(floor.wallUs, 0.5))} us`,
    });
  }
  await client.close();
  await bridge.close();
  http?.stop();
}

async function throughput(): Promise<void> {
  const bridge = await startBridge({
    servers: { b: stdioServers(1).s0 as Record<string, unknown> },
    env: process.env,
  });
  const client = await plainStdioClient();
  const count = quick ? 1000 : 5000;
  // Both share the SDK's code, so whichever runs first warms it for the other: warm both, then
  // alternate two rounds and keep each side's better round.
  const oursCall = (i: number) => bridge.call("mcp_b_add", { a: i, b: 1 });
  const theirsCall = (i: number) => client.callTool({ name: "add", arguments: { a: i, b: 1 } });
  await measureThroughput(count, 8, oursCall);
  await measureThroughput(count, 8, theirsCall);
  const best = (a: { perSecond: number; cpuUs: number }, b: { perSecond: number; cpuUs: number }) =>
    a.perSecond >= b.perSecond ? a : b;
  for (const inFlight of [1, 8, 64]) {
    const ours1 = await measureThroughput(count, inFlight, oursCall);
    const theirs1 = await measureThroughput(count, inFlight, theirsCall);
    const ours = best(ours1, await measureThroughput(count, inFlight, oursCall));
    const theirs = best(theirs1, await measureThroughput(count, inFlight, theirsCall));
    record({
      name: `throughput_${inFlight}_in_flight`,
      unit: "calls/s",
      bridge: ours.perSecond,
      baseline: theirs.perSecond,
      baselineName: "sdk",
      phase: "steady",
      detail: `client cpu ${fmt(ours.cpuUs)} vs ${fmt(theirs.cpuUs)} us/call`,
      ...(inFlight === 64
        ? { target: { text: ">= 0.95x sdk", met: ours.perSecond / theirs.perSecond >= 0.95 } }
        : {}),
    });
  }
  await client.close();
  await bridge.close();

  const many = await startBridge({ servers: stdioServers(8), env: process.env });
  const clients = await Promise.all(Array.from({ length: 8 }, () => plainStdioClient()));
  const total = quick ? 2000 : 8000;
  const ours = await measureThroughput(total, 64, (i) => many.call(`mcp_s${i % 8}_add`, { a: i, b: 1 }));
  const theirs = await measureThroughput(total, 64, (i) =>
    (clients[i % 8] as Client).callTool({ name: "add", arguments: { a: i, b: 1 } }),
  );
  record({
    name: "throughput_8_servers_x_8",
    unit: "calls/s",
    bridge: ours.perSecond,
    baseline: theirs.perSecond,
    baselineName: "sdk",
  });
  await Promise.all(clients.map((c) => c.close()));
  await many.close();
}

async function largeResults(): Promise<void> {
  const bridge = await startBridge({
    servers: { b: stdioServers(1).s0 as Record<string, unknown> },
    env: process.env,
  });
  const client = await plainStdioClient();
  for (const [label, chars] of [
    ["100kb", 100_000],
    ["5mb", 5_000_000],
  ] as const) {
    const count = chars > 1_000_000 ? (quick ? 5 : 20) : quick ? 50 : 200;
    const ours = await measureSequential(count, 2, () => bridge.call("mcp_b_text", { chars }));
    const theirs = await measureSequential(count, 2, () =>
      client.callTool({ name: "text", arguments: { chars } }),
    );
    record({
      name: `large_result_${label}_p50`,
      unit: "ms",
      bridge: percentile(ours.wallUs, 0.5) / 1000,
      baseline: percentile(theirs.wallUs, 0.5) / 1000,
      baselineName: "sdk",
      detail: "bridge includes conversion and truncation to 5000 chars",
    });
  }
  await client.close();
  await bridge.close();
}

async function startup(): Promise<void> {
  const delay = 300;
  const args = ["--startup-delay", String(delay)];
  const single = performance.now();
  const one = await startBridge({ servers: stdioServers(1, args), env: process.env });
  const slowest = performance.now() - single;
  await one.close();

  const started = performance.now();
  const bridge = await startBridge({ servers: stdioServers(10, args), env: process.env });
  const ours = performance.now() - started;
  const tools = bridge.tools().length;
  await bridge.close();

  const sequentialStart = performance.now();
  const clients: Client[] = [];
  for (let i = 0; i < 10; i++) {
    const client = await plainStdioClient(args);
    await client.listTools();
    clients.push(client);
  }
  const sequential = performance.now() - sequentialStart;
  await Promise.all(clients.map((c) => c.close()));
  record({
    name: "startup_10_stdio_vs_sequential_sdk",
    unit: "ms",
    bridge: ours,
    baseline: sequential,
    baselineName: "sdk one after another",
    detail: `${tools} tools registered; each server waits ${delay} ms before answering`,
    target: { text: ">= 5x faster than sequential", met: sequential / ours >= 5 },
  });
  record({
    name: "startup_10_stdio_vs_ideal_parallel",
    unit: "ms",
    bridge: ours,
    baseline: slowest,
    baselineName: "one server alone",
    target: { text: "<= 1.3x the slowest single server", met: ours / slowest <= 1.3 },
  });
}

async function catalog(): Promise<void> {
  const client = await plainStdioClient(["--tools", "2000"]);
  const { tools } = await client.listTools();
  await client.close();
  const registry = new ToolRegistry({
    toolNameFormat: "mcp_{server}_{tool}",
    descriptionPrefix: "[MCP:{server}] ",
  });
  const t0 = performance.now();
  registry.setServerTools("catalog", { include: [], exclude: [] }, tools);
  const registryMs = performance.now() - t0;
  record({
    name: "registry_ready_2000_tools",
    unit: "ms",
    bridge: registryMs,
    baseline: 50,
    baselineName: "target",
    target: { text: "< 50 ms after tools/list", met: registryMs < 50 },
  });
  const big = new ToolRegistry({ toolNameFormat: "mcp_{server}_{tool}", descriptionPrefix: "" });
  for (let s = 0; s < 5; s++) big.setServerTools(`srv${s}`, { include: [], exclude: [] }, tools);
  const entries = big.list();
  const t1 = performance.now();
  toOpenAITools(entries);
  const exportMs = performance.now() - t1;
  record({
    name: "to_openai_tools_10000",
    unit: "ms",
    bridge: exportMs,
    baseline: 50,
    baselineName: "target",
    detail: `${entries.length} entries, first export (uncached)`,
    target: { text: "< 50 ms", met: exportMs < 50 },
  });
}

async function connectPerCall(): Promise<void> {
  const count = quick ? 5 : 20;
  const perCall = await measureSequential(count, 1, async () => {
    const client = await plainStdioClient();
    await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    await client.close();
  });
  const bridge = await startBridge({
    servers: { b: stdioServers(1).s0 as Record<string, unknown> },
    env: process.env,
  });
  const warm = await measureSequential(quick ? 200 : 1000, 50, () =>
    bridge.call("mcp_b_add", { a: 1, b: 2 }),
  );
  await bridge.close();
  const slow = percentile(perCall.wallUs, 0.5);
  const fast = percentile(warm.wallUs, 0.5);
  record({
    name: "connect_per_call_vs_warm",
    unit: "us",
    bridge: fast,
    baseline: slow,
    baselineName: "spawn+initialize+call+close",
    target: { text: "connect-per-call >= 50x slower", met: slow / fast >= 50 },
  });
}

async function memory(): Promise<void> {
  const bridge: Bridge = await startBridge({ servers: stdioServers(10), env: process.env });
  global.gc?.();
  const rss10 = process.memoryUsage().rss / 1e6;
  const calls = quick ? 10_000 : 100_000;
  for (let i = 0; i < 2000; i++) await bridge.call(`mcp_s${i % 10}_add`, { a: i, b: 1 });
  global.gc?.();
  const before = process.memoryUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < calls) {
        const i = next++;
        await bridge.call(`mcp_s${i % 10}_add`, { a: i, b: 1 });
      }
    }),
  );
  global.gc?.();
  const after = process.memoryUsage();
  await bridge.close();
  record({
    name: "rss_10_servers",
    unit: "MB",
    bridge: rss10,
    baseline: rss10,
    baselineName: "(absolute)",
  });
  // RSS keeps what the allocator has not returned to the system, so a leak is judged on the heap.
  record({
    name: `heap_growth_${calls}_calls`,
    unit: "MB",
    bridge: (after.heapUsed - before.heapUsed) / 1e6,
    baseline: 20,
    baselineName: "target",
    detail: `rss growth ${fmt((after.rss - before.rss) / 1e6)} MB; ${global.gc ? "after gc" : "run with --expose-gc for steadier figures"}`,
    target: { text: "< 20 MB", met: (after.heapUsed - before.heapUsed) / 1e6 < 20 },
  });
}

type SectionEntry = [string, () => Promise<void>];
const sections: SectionEntry[] = [
  ["warm latency stdio", () => latency("stdio")],
  ["warm latency http", () => latency("http")],
  ["first calls stdio", async () => (await firstCallFigures("stdio", quick)).forEach(record)],
  ["first calls http", async () => (await firstCallFigures("http", quick)).forEach(record)],
  ["throughput", throughput],
  ["large results", largeResults],
  ["startup", startup],
  ["catalog", catalog],
  [
    "catalog cache and large catalogs",
    async () => (await catalogCacheFigures(SERVER, quick)).forEach(record),
  ],
  ["catalog heap", async () => catalogHeapFigures(quick).forEach(record)],
  ["tool search", async () => (await toolSearchFigures(quick)).forEach(record)],
  ["code mode", async () => (await codeModeFigures(join(here, "../.."))).forEach(record)],
  ["code mode hostile programs", async () => (await hostileProgramFigures()).forEach(record)],
  ["policy and audit", async () => (await policyFigures(SERVER, quick)).forEach(record)],
  ["pin check", async () => pinCheckFigures(quick).forEach(record)],
  ["guardrails", async () => guardrailFigures(quick).forEach(record)],
  ["connect per call", connectPerCall],
  ["sandbox start", async () => (await sandboxStartFigures(SERVER, quick)).forEach(record)],
  ["stdio spawn and memory per server", async () => stdioSpawnFigures(quick).forEach(record)],
  ["cli via daemon", async () => (await daemonCliFigures(quick)).forEach(record)],
  ["fast start", async () => (await startFigures(quick)).forEach(record)],
  ["gateway hop", async () => (await gatewayHopFigures(quick)).forEach(record)],
  ["serve startup with a hanging upstream", async () => (await serveStartupFigures(quick)).forEach(record)],
  ["attach fleet", async () => (await attachFleetFigures(quick)).forEach(record)],
  // 10 sessions over 10 servers, plus a serve --stdio with its own 10: ~25 s, so the full run only.
  ...(quick
    ? []
    : [["attach memory 10x10", async () => (await attachMemoryFigures()).forEach(record)] as SectionEntry]),
  ["memory", memory],
  [
    "peers",
    async () => {
      const result = await peerFigures(SERVER, quick, join(here, "../.."));
      result.figures.forEach(record);
      notes.push(...result.notes);
    },
  ],
];

// `--only NAME,NAME`: just the sections whose names contain one of these (e.g. `--only http,catalog`).
const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex >= 0 ? (process.argv[onlyIndex + 1] ?? "").split(",").filter(Boolean) : [];
const chosen = sections.filter(([name]) => only.length === 0 || only.some((part) => name.includes(part)));

const started = performance.now();
for (const [name, run] of chosen) {
  process.stderr.write(`${name}...\n`);
  try {
    await run();
  } catch (error) {
    notes.push(`${name}: failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const rows = figures.map((f) => [
  f.name,
  f.phase ?? "",
  `${fmt(f.bridge)} ${f.unit}`,
  `${fmt(f.baseline)} ${f.unit} (${f.baselineName})`,
  fmt(f.bridge / f.baseline, 2),
  f.detail ?? "",
]);
const headers = ["figure", "phase", "mcp-bridge", "baseline", "ratio", "detail"];
const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
const line = (cells: readonly string[]) =>
  cells
    .map((c, i) => c.padEnd(widths[i] ?? 0))
    .join("  ")
    .trimEnd();
console.log(line(headers));
for (const row of rows) console.log(line(row));
console.log("");
for (const f of figures)
  console.log(
    `${f.name}: bridge=${fmt(f.bridge, 2)} ${f.unit}, baseline=${fmt(f.baseline, 2)} ${f.unit}, ratio=${fmt(f.bridge / f.baseline, 3)}`,
  );
console.log("");
for (const f of figures)
  if (f.target) console.log(`target ${f.target.met ? "MET   " : "MISSED"} ${f.name}: ${f.target.text}`);
for (const note of notes) console.log(`note: ${note}`);
// Which calls the headline ratios stand for, so that a reader compares like with like.
console.log(
  `phases: the headline ratios (warm_call_*, throughput_*) are steady state, after ${quick ? 100 : 2000} warm-up calls per side; first_calls_* are the first ${FIRST_CALLS} calls of a fresh process per side (what a CLI run or a newly started host sees), median of ${quick ? 1 : 3} alternating runs`,
);
console.log(
  `\n${quick ? "quick" : "full"} run, ${fmt((performance.now() - started) / 1000)} s, node ${process.version}`,
);
process.exit(0);
