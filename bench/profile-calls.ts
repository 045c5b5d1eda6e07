/**
 * `node dist/bench/profile-calls.js <bridge|sdk> <stdio|http> [calls] [inFlight]`: a tight loop of warm
 * `add` calls on the benchmark server, for `node --cpu-prof` (compare the two clients' profiles) and
 * for a quick client-CPU-per-call figure without the whole bench.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startBridge } from "../src/bridge/bridge.js";
import { measureThroughput } from "./stats.js";

const [who = "bridge", kind = "stdio", countText = "5000", inFlightText = "1"] = process.argv.slice(2);
const SERVER = join(dirname(fileURLToPath(import.meta.url)), "servers/bench-server.js");

async function httpServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "ignore"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve) =>
    lines.on("line", (l) => l.startsWith("LISTENING ") && resolve(l.slice(10))),
  );
  return { url, stop: () => child.kill("SIGTERM") };
}

const http = kind === "http" ? await httpServer() : undefined;
let call: (i: number) => Promise<unknown>;
let close: () => Promise<void>;
if (who === "bridge") {
  const bridge = await startBridge({
    servers: { b: http ? { type: "http", url: http.url } : { command: process.execPath, args: [SERVER] } },
    env: process.env,
  });
  call = (i) => bridge.call("mcp_b_add", { a: i, b: 1 });
  close = () => bridge.close();
} else {
  const client = new Client({ name: "profile", version: "1" });
  await client.connect(
    http
      ? new StreamableHTTPClientTransport(new URL(http.url))
      : new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" }),
  );
  call = (i) => client.callTool({ name: "add", arguments: { a: i, b: 1 } });
  close = () => client.close();
}
const count = Number(countText);
const inFlight = Number(inFlightText);
await measureThroughput(Math.min(count, 1000), inFlight, call);
const rounds: string[] = [];
for (let r = 0; r < 3; r++) {
  const { perSecond, cpuUs } = await measureThroughput(count, inFlight, call);
  rounds.push(`${cpuUs.toFixed(1)} us cpu/call, ${perSecond.toFixed(0)} calls/s`);
}
console.log(`${who} ${kind} x${inFlight}: ${rounds.join("; ")}`);
await close();
http?.stop();
process.exit(0);
