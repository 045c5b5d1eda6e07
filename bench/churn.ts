/**
 * Issue 38.6, bounded under churn: `node --expose-gc dist/bench/churn.js [--quick]`. A gateway
 * (bench/churn-host.ts, its own process, sessions idle out after IDLE_MS) is sent
 *   - N 2025-11-25 `initialize` requests whose sessions are never used again nor closed, and
 *   - N sessionless GETs of /mcp (a client opening the notification stream without a session),
 * then left idle past the session idle time: its resident memory (after a GC) must be back to what it
 * was after a warm-up of the same kind, within 5 MiB. Then K sessions are opened and kept: what one
 * live idle session costs (heap and resident memory, per session) must stay within 4 KiB.
 * N = 100,000 (10,000 with --quick), K = 5,000 (2,000 with --quick).
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const quick = process.argv.includes("--quick");
const N = quick ? 10_000 : 100_000;
const K = quick ? 2_000 : 5_000;
const WARM = 2_000;
const IDLE_MS = 3_000;
const PARALLEL = 16;
const HOST = fileURLToPath(new URL("./churn-host.js", import.meta.url));
const MiB = 1024 * 1024;

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "churn", version: "1" } },
});

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface Host {
  memory(): Promise<Memory>;
  opened(): Promise<unknown>;
  sessionless(): Promise<unknown>;
  stop(): void;
}

/** Starts a gateway host whose sessions idle out after `idleMs`, and a client of it. */
async function startHost(idleMs: number): Promise<Host> {
  const host = spawn(process.execPath, ["--expose-gc", HOST, String(idleMs)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: host.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (prefix: string) => {
    for (;;) {
      const line = (await lines.next()).value as string | undefined;
      if (line === undefined) throw new Error("the gateway host ended");
      if (line.startsWith(prefix)) return line.slice(prefix.length);
    }
  };
  const url = new URL(await next("URL "));
  const agent = new Agent({ keepAlive: true, maxSockets: PARALLEL });
  const send = (method: "POST" | "GET", body?: string) =>
    new Promise<string | undefined>((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          agent,
          headers: {
            accept: method === "GET" ? "text/event-stream" : "application/json, text/event-stream",
            ...(body ? { "content-type": "application/json" } : {}),
          },
        },
        (res) => {
          const session = res.headers["mcp-session-id"];
          res.resume();
          res.on("end", () => resolve(typeof session === "string" ? session : undefined));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return {
    async memory() {
      host.stdin?.write("mem\n");
      return JSON.parse(await next("MEM ")) as Memory;
    },
    opened: () => send("POST", INITIALIZE),
    sessionless: () => send("GET"),
    stop() {
      agent.destroy();
      host.stdin?.end();
    },
  };
}

async function many(count: number, one: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let left = count;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (left-- > 0) await one();
    }),
  );
  return (performance.now() - started) / 1000;
}

const idleOut = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2 + 500));
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const churned = await startHost(IDLE_MS);
  await many(WARM, churned.opened);
  await many(WARM, churned.sessionless);
  await idleOut();
  const baseline = await churned.memory();
  const openSeconds = await many(N, churned.opened);
  const getSeconds = await many(N, churned.sessionless);
  const peak = await churned.memory();
  await idleOut();
  const after = await churned.memory();
  churned.stop();

  // Live idle sessions, on a gateway whose sessions do not idle out while they are measured.
  const kept = await startHost(10 * 60_000);
  await many(WARM, kept.opened);
  const before = await kept.memory();
  await many(K, kept.opened);
  const live = await kept.memory();
  kept.stop();
  const perSession = (field: keyof Memory) => (live[field] - before[field]) / K;

  const rows: [string, string][] = [
    ["baseline rss (after a warm-up, idle)", mib(baseline.rss)],
    [
      `${N} sessions opened, abandoned (${(N / openSeconds).toFixed(0)}/s)`,
      `after: rss ${mib(peak.rss)}, heap ${mib(peak.heapUsed)}`,
    ],
    [`${N} sessionless GETs (${(N / getSeconds).toFixed(0)}/s)`, ""],
    ["rss after the idle time, vs baseline (target at most +5 MiB)", mib(after.rss - baseline.rss)],
    [
      "heap after the idle time, vs baseline (target at most +5 MiB)",
      mib(after.heapUsed - baseline.heapUsed),
    ],
    [
      `live idle session, heap (${K} kept, target <= 4 KiB)`,
      `${(perSession("heapUsed") / 1024).toFixed(1)} KiB`,
    ],
    ["live idle session, rss", `${(perSession("rss") / 1024).toFixed(1)} KiB`],
  ];
  for (const [name, value] of rows) process.stdout.write(`${name.padEnd(62)} ${value}\n`);
  // Below the baseline is no leak (the warm-up's garbage may have been returned to the system since).
  const bounded = after.rss - baseline.rss <= 5 * MiB;
  const heapBounded = after.heapUsed - baseline.heapUsed <= 5 * MiB;
  const cheap = perSession("heapUsed") <= 4096;
  const yes = (ok: boolean) => (ok ? "yes" : "NO");
  process.stdout.write(
    `bounded under churn: heap ${yes(heapBounded)}, rss ${yes(bounded)}; live session within 4 KiB: ${yes(cheap)}\n`,
  );
}

await main();
