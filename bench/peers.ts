/**
 * The peer libraries on the same benchmark server and workload. They are installed on first use into
 * .bench-peers/ (not dependencies of mcp-bridge) and measured in a child process started there, so
 * their module resolution and their copies of the SDK stay out of our tree.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface PeerFigures {
  readonly peer: string;
  readonly warmP50Us?: number;
  readonly cpuUsPerCall?: number;
  readonly startup10Ms?: number;
  readonly error?: string;
}

const PEERS = ["@langchain/mcp-adapters", "@mastra/mcp", "mcporter"];

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

export function measurePeers(root: string, server: string, count: number): PeerFigures[] {
  const dir = join(root, ".bench-peers");
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "package.json")))
    writeFileSync(
      join(dir, "package.json"),
      '{ "name": "bench-peers", "private": true, "type": "module" }\n',
    );
  writeFileSync(join(dir, "peer.mjs"), SCRIPT);
  const results: PeerFigures[] = [];
  for (const peer of PEERS) {
    try {
      if (!existsSync(join(dir, "node_modules", peer))) {
        execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", peer], {
          cwd: dir,
          stdio: "ignore",
          timeout: 300_000,
        });
      }
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
