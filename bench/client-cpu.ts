/**
 * Client CPU per warm stdio call, measured the same way for every client: mcp-bridge, the plain
 * official SDK v2 and v1 clients, and the peer libraries. Each (client, in-flight level) pair runs in
 * a fresh child process started in .bench-peers/, so no client inherits another's JIT state, heap or
 * GC debt, and ours is not favoured by running inside the bench process. A client's figure is the
 * median of several rounds of process.cpuUsage() around thousands of calls; the whole client list
 * runs three times, alternating the order, and each client keeps the median of its three passes, so
 * load from elsewhere on the machine (which drifts over a run) falls on every client alike.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Every client the child script can open, in the order of the first pass. */
export const CPU_CLIENTS = [
  "mcp-bridge",
  "sdk-v2",
  "sdk-v1",
  "mcporter",
  "@mastra/mcp",
  "@langchain/mcp-adapters",
] as const;

export type CpuClient = (typeof CPU_CLIENTS)[number];

export interface ClientCpu {
  readonly client: CpuClient;
  readonly inFlight: number;
  /** Client CPU (user + system) per call of the median round, in microseconds. */
  readonly cpuUsPerCall?: number;
  /** Calls per second in that round. */
  readonly callsPerSecond?: number;
  /** The median of each pass, in run order, to show how far noise moved the figure. */
  readonly passes?: readonly number[];
  readonly error?: string;
}

export interface ClientCpuOptions {
  /** Calls per measured round. */
  readonly count: number;
  /** Measured rounds per child; the median is kept. Odd, so the median is one real round. */
  readonly rounds: number;
  /** Calls before the first round, so every client is measured warm (JIT, connection, caches). */
  readonly warmup: number;
  readonly inFlight: readonly number[];
}

/**
 * The child: `node client-cpu.mjs CLIENT SERVER COUNT ROUNDS WARMUP IN_FLIGHT`, started in
 * .bench-peers/ so the peers resolve from there. mcp-bridge and the SDK v2 client come from this
 * repository by absolute file URL (BRIDGE_ENTRY, SDK_ENTRY, SDK_STDIO_ENTRY); the SDK v1 client is
 * the one mcporter brings. One probe call checks the answer before timing, so a client whose calls
 * fail fast cannot look cheap. Prints one JSON line.
 */
const SCRIPT = `
const [client, server, countText, roundsText, warmupText, inFlightText] = process.argv.slice(2);
const count = Number(countText), rounds = Number(roundsText), warmup = Number(warmupText), inFlight = Number(inFlightText);
async function sdkClient(Client, StdioClientTransport) {
  const c = new Client({ name: "bench", version: "1" });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [server], stderr: "ignore" }));
  return { call: (a) => c.callTool({ name: "add", arguments: { a, b: 1 } }), close: () => c.close() };
}
async function open() {
  switch (client) {
    case "mcp-bridge": {
      const { startBridge } = await import(process.env.BRIDGE_ENTRY);
      const bridge = await startBridge({ servers: { b: { command: process.execPath, args: [server] } }, env: process.env });
      return { call: (a) => bridge.call("mcp_b_add", { a, b: 1 }), close: () => bridge.close() };
    }
    case "sdk-v2": {
      const { Client } = await import(process.env.SDK_ENTRY);
      const { StdioClientTransport } = await import(process.env.SDK_STDIO_ENTRY);
      return sdkClient(Client, StdioClientTransport);
    }
    case "sdk-v1": {
      const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
      const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
      return sdkClient(Client, StdioClientTransport);
    }
    case "mcporter": {
      const { createRuntime } = await import("mcporter");
      const runtime = await createRuntime({ servers: [{ name: "b", command: { kind: "stdio", command: process.execPath, args: [server], cwd: process.cwd() } }] });
      await runtime.listTools("b");
      return { call: (a) => runtime.callTool("b", "add", { args: { a, b: 1 } }), close: () => runtime.close() };
    }
    case "@mastra/mcp": {
      const { MCPClient } = await import(client);
      const c = new MCPClient({ id: "bench-" + process.pid, servers: { b: { command: process.execPath, args: [server] } } });
      const tools = await c.getTools();
      const add = Object.entries(tools).find(([name]) => name.endsWith("add"))[1];
      return { call: (a) => add.execute({ context: { a, b: 1 } }, {}), close: () => c.disconnect() };
    }
    case "@langchain/mcp-adapters": {
      const { MultiServerMCPClient } = await import(client);
      const c = new MultiServerMCPClient({ mcpServers: { b: { transport: "stdio", command: process.execPath, args: [server] } } });
      const add = (await c.getTools()).find((t) => t.name.endsWith("add"));
      return { call: (a) => add.invoke({ a, b: 1 }), close: () => c.close() };
    }
  }
  throw new Error("unknown client " + client);
}
const { call, close } = await open();
const probe = JSON.stringify(await call(41));
if (!probe.includes("42")) throw new Error("probe call answered " + probe.slice(0, 200));
async function round(n) {
  let next = 0;
  const worker = async () => { while (next < n) await call(next++); };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { cpuUsPerCall: (used.user + used.system) / n, callsPerSecond: n / seconds };
}
await round(warmup);
const results = [];
for (let i = 0; i < rounds; i++) results.push(await round(count));
results.sort((x, y) => x.cpuUsPerCall - y.cpuUsPerCall);
console.log(JSON.stringify(results[Math.floor(results.length / 2)]));
await close();
process.exit(0);
`;

/** Absolute file URLs of this repository's built library and SDK v2 client, for the child's imports. */
function entries(root: string): Record<string, string> {
  return {
    BRIDGE_ENTRY: pathToFileURL(join(root, "dist/src/index.js")).href,
    SDK_ENTRY: import.meta.resolve("@modelcontextprotocol/client"),
    SDK_STDIO_ENTRY: import.meta.resolve("@modelcontextprotocol/client/stdio"),
  };
}

function runChild(
  dir: string,
  env: NodeJS.ProcessEnv,
  args: string[],
): Omit<ClientCpu, "client" | "inFlight"> {
  try {
    const out = execFileSync(process.execPath, ["client-cpu.mjs", ...args], {
      cwd: dir,
      env,
      encoding: "utf8",
      timeout: 300_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
    return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Omit<ClientCpu, "client" | "inFlight">;
  } catch (error) {
    // The child's last stderr line names the cause (an import that failed, a refused probe); the
    // first line of the error only says the command failed.
    const stderr = String((error as { stderr?: unknown }).stderr ?? "");
    const cause = stderr
      .split("\n")
      .filter((l) => /\w/.test(l))
      .find((l) => /Error/.test(l));
    return { error: cause?.trim() ?? (error as Error).message.split("\n")[0] ?? "failed" };
  }
}

/**
 * Measures every client at every in-flight level in three passes over the list (forwards, backwards,
 * forwards): a client's figure is the median of its three passes' medians, so one pass that machine
 * load or an unlucky placement of client and server on the cores spoilt moves nothing. `dir` is the
 * prepared .bench-peers/ directory.
 */
export function measureClientCpu(
  root: string,
  dir: string,
  server: string,
  options: ClientCpuOptions,
  clients: readonly CpuClient[] = CPU_CLIENTS,
): ClientCpu[] {
  writeFileSync(join(dir, "client-cpu.mjs"), SCRIPT);
  const env = { ...process.env, ...entries(root) };
  const jobs = clients.flatMap((client) => options.inFlight.map((inFlight) => ({ client, inFlight })));
  const runs = new Map<string, Omit<ClientCpu, "client" | "inFlight">[]>();
  for (const { client, inFlight } of [...jobs, ...[...jobs].reverse(), ...jobs]) {
    const args = [client, server, options.count, options.rounds, options.warmup, inFlight].map(String);
    const key = `${client} ${inFlight}`;
    runs.set(key, [...(runs.get(key) ?? []), runChild(dir, env, args)]);
  }
  return jobs.map(({ client, inFlight }) => {
    const all = runs.get(`${client} ${inFlight}`) ?? [];
    const measured = all.filter((run) => run.cpuUsPerCall !== undefined);
    if (measured.length === 0) return { client, inFlight, error: all[0]?.error ?? "no figures" };
    const passes = measured.map((run) => run.cpuUsPerCall as number);
    const median = [...measured].sort((a, b) => (a.cpuUsPerCall as number) - (b.cpuUsPerCall as number))[
      Math.floor((measured.length - 1) / 2)
    ] as Omit<ClientCpu, "client" | "inFlight">;
    return { client, inFlight, ...median, passes };
  });
}
