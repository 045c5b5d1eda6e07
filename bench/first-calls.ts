/**
 * The first calls of a fresh process, for mcp-bridge and the plain SDK client alike: what a CLI run or
 * a newly started host sees, before the JIT has compiled the call path. Each side runs in a process of
 * its own (in one process the side measured second would find the SDK's shared code already warm), the
 * two alternate, and the median run is kept.
 *
 * `node dist/bench/first-calls.js bridge|sdk stdio|http [URL]` prints one JSON line; `firstCallFigures`
 * drives it and returns the figures.
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startBridge } from "../src/bridge/bridge.js";
import { type Figure, fmt, measureSequential, percentile } from "./stats.js";

/** How many calls count as "first": a CLI session or a short agent turn makes far fewer. */
export const FIRST_CALLS = 500;
const SELF = fileURLToPath(import.meta.url);
const SERVER = fileURLToPath(new URL("./servers/bench-server.js", import.meta.url));

interface Run {
  readonly p50Us: number;
  readonly p99Us: number;
  readonly cpuUs: number;
}

async function measureOnce(side: string, kind: string, url: string | undefined): Promise<Run> {
  let call: (i: number) => Promise<unknown>;
  let close: () => Promise<void>;
  if (side === "bridge") {
    const server = url ? { type: "http", url } : { command: process.execPath, args: [SERVER] };
    const bridge = await startBridge({ servers: { b: server }, env: process.env });
    call = (i) => bridge.call("mcp_b_add", { a: i, b: 1 });
    close = () => bridge.close();
  } else {
    const client = new Client({ name: "bench-baseline", version: "1" });
    await client.connect(
      url
        ? new StreamableHTTPClientTransport(new URL(url))
        : new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" }),
    );
    call = (i) => client.callTool({ name: "add", arguments: { a: i, b: 1 } });
    close = () => client.close();
  }
  const sample = await measureSequential(FIRST_CALLS, 0, call);
  await close();
  if (kind !== "stdio" && kind !== "http") throw new Error(`unknown transport ${kind}`);
  return {
    p50Us: percentile(sample.wallUs, 0.5),
    p99Us: percentile(sample.wallUs, 0.99),
    cpuUs: sample.cpuUs,
  };
}

function runChild(side: "bridge" | "sdk", kind: "stdio" | "http", url: string | undefined): Run {
  const args = [SELF, side, kind, ...(url ? [url] : [])];
  const run = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 120_000 });
  if (run.status !== 0) throw new Error(`first-calls ${side} ${kind} failed: ${run.stderr.slice(0, 500)}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "") as Run;
}

const median = (values: readonly number[]) => percentile(values, 0.5);

/** The first-500-calls p50 and client CPU per call, mcp-bridge against the SDK client. */
export async function firstCallFigures(kind: "stdio" | "http", quick: boolean): Promise<Figure[]> {
  const server =
    kind === "http"
      ? spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "ignore"] })
      : undefined;
  try {
    const url = server
      ? await new Promise<string>((resolve) =>
          createInterface({ input: server.stdout as NodeJS.ReadableStream }).on(
            "line",
            (l) => l.startsWith("LISTENING ") && resolve(l.slice(10)),
          ),
        )
      : undefined;
    const ours: Run[] = [];
    const theirs: Run[] = [];
    for (let round = 0; round < (quick ? 1 : 3); round++) {
      ours.push(runChild("bridge", kind, url));
      theirs.push(runChild("sdk", kind, url));
    }
    const p50 = median(ours.map((r) => r.p50Us));
    const base50 = median(theirs.map((r) => r.p50Us));
    const detail = `fresh process, first ${FIRST_CALLS} calls, median of ${ours.length} runs; p99 ${fmt(median(ours.map((r) => r.p99Us)))} vs ${fmt(median(theirs.map((r) => r.p99Us)))} us`;
    return [
      {
        name: `first_calls_${kind}_p50`,
        unit: "us",
        bridge: p50,
        baseline: base50,
        baselineName: "sdk",
        detail,
        phase: "first",
      },
      {
        name: `first_calls_${kind}_cpu`,
        unit: "us/call",
        bridge: median(ours.map((r) => r.cpuUs)),
        baseline: median(theirs.map((r) => r.cpuUs)),
        baselineName: "sdk",
        detail,
        phase: "first",
      },
    ];
  } finally {
    server?.kill("SIGTERM");
  }
}

if (process.argv[1] === SELF) {
  const [side = "", kind = "", url] = process.argv.slice(2);
  const run = await measureOnce(side, kind, url);
  process.stdout.write(`${JSON.stringify(run)}\n`);
  process.exit(0);
}
