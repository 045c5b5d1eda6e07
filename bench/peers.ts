/**
 * The peer libraries on the same benchmark server and workload. They are installed on first use into
 * .bench-peers/ (not dependencies of mcp-bridge) and measured in a child process started there, so
 * their module resolution and their copies of the SDK stay out of our tree.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface PeerFigures {
  readonly peer: string;
  readonly warmP50Us?: number;
  readonly cpuUsPerCall?: number;
  readonly startup10Ms?: number;
  readonly error?: string;
}

/** mcporter also brings the SDK v1 client (@modelcontextprotocol/sdk) the CPU comparison measures. */
export const PEERS = ["@langchain/mcp-adapters", "@mastra/mcp", "mcporter"];

const SCRIPT = `
const [peer, server, countText] = process.argv.slice(2);
const count = Number(countText);
const entry = (name) => ({ command: process.execPath, args: [server] });
const names = Array.from({ length: 10 }, (_, i) => "s" + i);
async function open(serverNames) {
  if (peer === "@langchain/mcp-adapters") {
    const { MultiServerMCPClient } = await import(peer);
    const client = new MultiServerMCPClient({ mcpServers: Object.fromEntries(serverNames.map((n) => [n, { transport: "stdio", ...entry(n) }])) });
    const tools = await client.getTools();
    const add = tools.find((t) => t.name.endsWith("add"));
    return { call: (a) => add.invoke({ a, b: 1 }), close: () => client.close() };
  }
  if (peer === "@mastra/mcp") {
    const { MCPClient } = await import(peer);
    const client = new MCPClient({ id: "bench-" + Math.random(), servers: Object.fromEntries(serverNames.map((n) => [n, entry(n)])) });
    const tools = await client.getTools();
    const add = Object.entries(tools).find(([name]) => name.endsWith("add"))[1];
    return { call: (a) => add.execute({ context: { a, b: 1 } }, {}), close: () => client.disconnect() };
  }
  const { createRuntime } = await import(peer);
  const runtime = await createRuntime({ servers: serverNames.map((name) => ({ name, command: { kind: "stdio", command: process.execPath, args: [server], cwd: process.cwd() } })) });
  await Promise.all(serverNames.map((n) => runtime.listTools(n)));
  return { call: (a) => runtime.callTool(serverNames[0], "add", { args: { a, b: 1 } }), close: () => runtime.close() };
}
const started = performance.now();
const ten = await open(names);
const startup10Ms = performance.now() - started;
await ten.close();
const one = await open(["b"]);
for (let i = 0; i < 100; i++) await one.call(i);
const samples = [];
const cpu = process.cpuUsage();
for (let i = 0; i < count; i++) {
  const t = process.hrtime.bigint();
  await one.call(i);
  samples.push(Number(process.hrtime.bigint() - t) / 1000);
}
const used = process.cpuUsage(cpu);
await one.close();
samples.sort((x, y) => x - y);
console.log(JSON.stringify({ warmP50Us: samples[Math.floor(samples.length / 2)], cpuUsPerCall: (used.user + used.system) / count, startup10Ms }));
process.exit(0);
`;

/**
 * Creates .bench-peers/ and installs the peers missing from it. All in one `npm install` that saves
 * them to .bench-peers/package.json: npm prunes packages the manifest does not list, so installing
 * peers one by one without saving removed each earlier one. Returns the directory and, when the
 * install failed, why (the peers then fail to load and are reported as notes).
 */
export function preparePeers(root: string): { dir: string; installError?: string } {
  const dir = join(root, ".bench-peers");
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest))
    writeFileSync(manifest, '{ "name": "bench-peers", "private": true, "type": "module" }\n');
  const listed = (JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: object }).dependencies ?? {};
  const missing = PEERS.some((peer) => !(peer in listed) || !existsSync(join(dir, "node_modules", peer)));
  if (!missing) return { dir };
  try {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", ...PEERS], {
      cwd: dir,
      stdio: "ignore",
      timeout: 300_000,
    });
    return { dir };
  } catch (error) {
    return { dir, installError: (error as Error).message.split("\n")[0] ?? "failed" };
  }
}

/** Sequential warm latency and 10-server startup of each peer, in `dir` from preparePeers(). */
export function measurePeers(dir: string, server: string, count: number): PeerFigures[] {
  writeFileSync(join(dir, "peer.mjs"), SCRIPT);
  const results: PeerFigures[] = [];
  for (const peer of PEERS) {
    try {
      const out = execFileSync(process.execPath, ["peer.mjs", peer, server, String(count)], {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
        stdio: ["ignore", "pipe", "ignore"],
      });
      const line = out.trim().split("\n").at(-1) ?? "{}";
      results.push({ peer, ...(JSON.parse(line) as Omit<PeerFigures, "peer">) });
    } catch (error) {
      results.push({ peer, error: (error as Error).message.split("\n")[0] ?? "failed" });
    }
  }
  return results;
}
