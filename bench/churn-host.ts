/**
 * The gateway under churn (bench/churn.ts runs it, with --expose-gc): `startGateway` over one bench
 * server, sessions idle out after argv[2] ms, and room for far more sessions than the default (the
 * bench opens 100,000 without closing any). Prints `URL <url>`; on each `mem` line on stdin it collects
 * garbage and prints `MEM <json>` (rss, heapUsed, external, arrayBuffers, in bytes).
 */
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startGateway } from "../src/apps/gateway/index.js";
import { startBridge } from "../src/bridge/bridge.js";

const SERVER = fileURLToPath(new URL("./servers/bench-server.js", import.meta.url));
const idleMs = Number(process.argv[2] ?? 5000);
const bridge = await startBridge({ servers: { bench: { command: process.execPath, args: [SERVER] } } });
const gateway = await startGateway({ bridge, sessionIdleMs: idleMs, maxSessions: 1_000_000 });
process.stdout.write(`URL ${gateway.url}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line !== "mem") return;
  for (let i = 0; i < 3; i++) gc?.();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`MEM ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`);
});
process.stdin.on("end", async () => {
  await gateway.close();
  await bridge.close();
  process.exit(0);
});
