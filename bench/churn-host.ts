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
createInterface({ input: process.stdin }).on("line", async (line) => {
  if (line !== "mem") return;
  // Between collections the event loop turns: FinalizationRegistry callbacks (undici's, which hold a
  // finished request's abort signal until they run) run only then, and would be counted as kept.
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`MEM ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`);
});
process.stdin.on("end", async () => {
  await gateway.close();
  await bridge.close();
  process.exit(0);
});
