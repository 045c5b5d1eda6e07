/**
 * Figures of the catalog cache and of large catalogs: ten servers ready from a warm cache against the
 * same start without it; a call on a 2,000-tool server against the plain SDK's; start() plus listing
 * of 20,000 tools in client CPU.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startBridge } from "../src/bridge/bridge.js";
import { type Figure, fmt, measureSequential, percentile } from "./stats.js";

const servers = (server: string, count: number, args: string[]) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `s${i}`,
      { command: process.execPath, args: [server, ...args] },
    ]),
  );

async function plainClient(server: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "bench-baseline", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [server, ...args], stderr: "ignore" }),
  );
  return client;
}

/** Ten stdio servers that each wait 300 ms before answering: tools ready with and without a warm cache. */
async function startFromCache(server: string): Promise<Figure[]> {
  const cacheDir = mkdtempSync(join(tmpdir(), "mcp-bridge-bench-cache-"));
  const env = { ...process.env, MCP_BRIDGE_CACHE_DIR: cacheDir };
  const config = servers(server, 10, ["--startup-delay", "300"]);
  try {
    const coldStarted = performance.now();
    const cold = await startBridge({ servers: config, env });
    const coldMs = performance.now() - coldStarted;
    const coldTools = cold.tools().length;
    await cold.close();
    // Best of three warm starts: the figure is the bridge's own time, not a scheduler hiccup.
    let warmMs = Number.POSITIVE_INFINITY;
    let warmTools = 0;
    let connectedMs = 0;
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const warm = await startBridge({ servers: config, env });
      const ms = performance.now() - started;
      warmTools = warm.tools().length;
      await warm.ready();
      connectedMs = performance.now() - started;
      await warm.close();
      warmMs = Math.min(warmMs, ms);
    }
    return [
      {
        name: "tools_ready_10_stdio_warm_cache",
        unit: "ms",
        bridge: warmMs,
        baseline: coldMs,
        baselineName: "same start without a cache",
        detail: `${warmTools} tools listed at once (${coldTools} live); all connected after ${fmt(connectedMs)} ms`,
        target: { text: "<= 30 ms", met: warmMs <= 30 && warmTools === coldTools },
      },
    ];
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** A call on a server listing 2,000 tools: the bridge against the plain SDK client on the same server. */
async function largeCatalogCall(server: string, quick: boolean): Promise<Figure[]> {
  const args = ["--tools", "2000"];
  const bridge = await startBridge({
    servers: { b: { command: process.execPath, args: [server, ...args] } },
    env: process.env,
  });
  const client = await plainClient(server, args);
  await client.listTools();
  const count = quick ? 300 : 2000;
  const ours = (i: number) => bridge.call("mcp_b_add", { a: i, b: 1 });
  const theirs = (i: number) => client.callTool({ name: "add", arguments: { a: i, b: 1 } });
  // Alternate two rounds each so that machine noise hits both alike.
  const a1 = await measureSequential(count, quick ? 50 : 200, ours);
  const b1 = await measureSequential(count, quick ? 50 : 200, theirs);
  const a2 = await measureSequential(count, 0, ours);
  const b2 = await measureSequential(count, 0, theirs);
  await client.close();
  await bridge.close();
  const p50 = percentile([...a1.wallUs, ...a2.wallUs], 0.5);
  const base = percentile([...b1.wallUs, ...b2.wallUs], 0.5);
  return [
    {
      name: "call_2000_tool_server_p50",
      unit: "us",
      bridge: p50,
      baseline: base,
      baselineName: "sdk",
      detail: `client cpu ${fmt((a1.cpuUs + a2.cpuUs) / 2)} vs ${fmt((b1.cpuUs + b2.cpuUs) / 2)} us/call`,
      target: { text: "<= 1.05x sdk", met: p50 / base <= 1.05 },
    },
  ];
}

/** start() and the listing of 20,000 tools, in client CPU (the server's time to build them is not ours). */
async function hugeCatalogStart(server: string): Promise<Figure[]> {
  const args = ["--tools", "20000"];
  const cpuSdk = process.cpuUsage();
  const client = await plainClient(server, args);
  const { tools } = await client.listTools();
  const sdkUsed = process.cpuUsage(cpuSdk);
  await client.close();
  const cpu = process.cpuUsage();
  const bridge = await startBridge({
    servers: { b: { command: process.execPath, args: [server, ...args] } },
    env: process.env,
    catalogCache: false,
  });
  const listed = bridge.tools().length;
  const used = process.cpuUsage(cpu);
  await bridge.close();
  const ms = (used.user + used.system) / 1000;
  return [
    {
      name: "start_and_list_20000_tools_cpu",
      unit: "ms",
      bridge: ms,
      baseline: 1000,
      baselineName: "target",
      detail: `${listed} tools; the plain SDK's connect+listTools alone took ${fmt((sdkUsed.user + sdkUsed.system) / 1000)} ms cpu for ${tools.length}`,
      target: { text: "< 1000 ms client cpu", met: ms < 1000 },
    },
  ];
}

export async function catalogCacheFigures(server: string, quick: boolean): Promise<Figure[]> {
  return [
    ...(await startFromCache(server)),
    ...(await largeCatalogCall(server, quick)),
    ...(await hugeCatalogStart(server)),
  ];
}
