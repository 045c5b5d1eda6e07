/**
 * Code mode against hostile programs: 24 programs at once, each `for(;;) a.push(new Uint8Array(1e6))`
 * from its own caller, in a fresh process (so the RSS is this section's alone): the host's RSS growth
 * against 64 MiB x the process's execution cap, the event loop's longest gap while they run against
 * the same timer's longest gap with nothing running (the machine's own noise), and how many waited
 * for a slot. Then an execution of `return 1` (median) against the first one of the process, which
 * compiles QuickJS's module as every execution did before the module was compiled once per process.
 *
 * Alone: `node dist/bench/code-mode-hostile.js` after `npx tsc -p tsconfig.json`.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CodeModeSource } from "../src/codemode/api-cache.js";
import { executeCode } from "../src/codemode/execute-code.js";
import { EXECUTION_CAPS, executionSlots } from "../src/codemode/execution-slots.js";
import { type Figure, percentile } from "./stats.js";

const PROGRAMS = 24;
const MiB = 1024 * 1024;
const HOSTILE = "const a = []; for (;;) a.push(new Uint8Array(1e6));";
const NOTHING: CodeModeSource = { tools: () => [], call: async () => ({}) as never, searchTools: () => [] };

interface Measured {
  readonly growthMiB: number;
  readonly maxGapMs: number;
  readonly idleGapMs: number;
  readonly mostWaiting: number;
  readonly memoryLimited: number;
  readonly startMs: number;
  readonly firstMs: number;
}

/** The longest gap of a 10 ms timer beyond its period while `run` runs. */
async function longestGap(run: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 10);
    last = now;
  }, 10);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return longest;
}

async function measure(): Promise<Measured> {
  // The first execution of the process compiles QuickJS's module (V8 compiles its functions as they
  // are first called, into the module): what every execution paid before the module was shared.
  const firstStarted = performance.now();
  await executeCode(NOTHING, "return 1");
  const firstMs = performance.now() - firstStarted;
  // The module is compiled and a worker started once before the base is read: one-time costs.
  const base = process.memoryUsage().rss;
  let peak = base;
  let mostWaiting = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
    mostWaiting = Math.max(mostWaiting, executionSlots.load.waiting);
  }, 5);
  let memoryLimited = 0;
  const maxGapMs = await longestGap(() =>
    Promise.all(
      Array.from({ length: PROGRAMS }, (_, i) =>
        executeCode(NOTHING, HOSTILE, { caller: `client-${i}`, cpuMs: 60_000, timeoutMs: 120_000 }).catch(
          (error: { limit?: string }) => {
            if (error.limit === "memory") memoryLimited++;
          },
        ),
      ),
    ),
  );
  clearInterval(sampler);
  const idleGapMs = await longestGap(() => new Promise((resolve) => setTimeout(resolve, 2000)));
  const starts: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    await executeCode(NOTHING, "return 1");
    starts.push(performance.now() - started);
  }
  return {
    growthMiB: (peak - base) / MiB,
    maxGapMs,
    idleGapMs,
    mostWaiting,
    memoryLimited,
    startMs: percentile(starts, 0.5),
    firstMs,
  };
}

export async function hostileProgramFigures(): Promise<Figure[]> {
  const output = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [fileURLToPath(import.meta.url), "--measure"],
      { maxBuffer: 1 << 20 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );
  const m = JSON.parse(output.trim().split("\n").pop() ?? "{}") as Measured;
  const bound = 64 * EXECUTION_CAPS.perProcess;
  return [
    {
      name: `code_mode_hostile_memory: ${PROGRAMS} typed-array bombs at once`,
      unit: "MiB",
      bridge: Math.round(m.growthMiB),
      baseline: bound,
      baselineName: `64 MiB x ${EXECUTION_CAPS.perProcess} programs at once`,
      detail: `host RSS growth; ${m.memoryLimited}/${PROGRAMS} ended CODE_LIMIT memory; at most ${m.mostWaiting} waited for a slot (executions queued)`,
      target: {
        text: `<= 64 MiB x ${EXECUTION_CAPS.perProcess} over the host's base`,
        met: m.growthMiB <= bound,
      },
    },
    {
      name: `code_mode_hostile_event_loop: longest gap during ${PROGRAMS} bombs`,
      unit: "ms",
      bridge: Math.round(m.maxGapMs),
      baseline: Math.round(m.idleGapMs),
      baselineName: "same timer with nothing running (the machine's noise)",
      target: { text: "<= 100 ms", met: m.maxGapMs <= 100 },
    },
    {
      name: "code_mode_execution_start: `return 1`, median",
      unit: "ms",
      bridge: Math.round(m.startMs),
      baseline: Math.round(m.firstMs),
      baselineName:
        "the first execution of a process, which compiles the module (every execution did before)",
    },
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--measure")) {
    process.stdout.write(`${JSON.stringify(await measure())}\n`);
  } else {
    for (const figure of await hostileProgramFigures()) {
      process.stdout.write(
        `${figure.name}: ${figure.bridge} ${figure.unit}, ${figure.baselineName}=${figure.baseline} ${figure.unit}${figure.detail ? ` (${figure.detail})` : ""}${figure.target ? ` target ${figure.target.text}: ${figure.target.met ? "met" : "NOT met"}` : ""}\n`,
      );
    }
  }
}
