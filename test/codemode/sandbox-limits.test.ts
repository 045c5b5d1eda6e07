import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CodeModeSource } from "../../src/codemode/api-cache.js";
import { executeCode } from "../../src/codemode/execute-code.js";
import { ExecutionSlots, executionSlots } from "../../src/codemode/execution-slots.js";
import { guestPrelude, OUTPUT_EXCEEDED } from "../../src/codemode/guest-prelude.js";
import { quickjsModule } from "../../src/codemode/quickjs-module.js";
import { CodeLimitError } from "../../src/errors/index.js";

/** No tools: these programs only use memory, output and the process's execution slots. */
const NOTHING: CodeModeSource = { tools: () => [], call: async () => ({}) as never, searchTools: () => [] };

const BOMB = "const a = []; for (;;) a.push(new Uint8Array(1e6));";
const MiB = 1024 * 1024;

async function limitOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CodeLimitError);
  return (error as CodeLimitError).limit;
}

/** The process's largest RSS while `run` runs, sampled on a timer (never asserted on time). */
async function peakRss<T>(run: () => Promise<T>): Promise<{ growth: number; result: T }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await run();
    return { growth: peak - before, result };
  } finally {
    clearInterval(sampler);
  }
}

describe("memory is bounded by the WebAssembly memory, not only QuickJS's allocator", () => {
  // No CPU limit may come first on a loaded machine: only memory can stop these.
  const roomy = { cpuMs: 60_000, timeoutMs: 60_000 };

  it("typed arrays past the limit: CODE_LIMIT memory, and the host grows by about one limit", async () => {
    const { growth, result } = await peakRss(() => limitOf(executeCode(NOTHING, BOMB, roomy)));
    expect(result).toBe("memory");
    // Before the cap, the same program took the host past 2 GB. Generous: 64 MiB of guest memory,
    // the worker itself, and the first compile of the module.
    expect(growth).toBeLessThan(400 * MiB);
  }, 90_000);

  it("twelve at once from twelve callers: each ends at its memory limit, a few at a time", async () => {
    let mostRunning = 0;
    const watcher = setInterval(() => {
      mostRunning = Math.max(mostRunning, executionSlots.load.running);
    }, 5);
    try {
      const { growth, result } = await peakRss(() =>
        Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            limitOf(executeCode(NOTHING, BOMB, { ...roomy, caller: `c${i}` })),
          ),
        ),
      );
      expect(result).toEqual(Array(12).fill("memory"));
      expect(mostRunning).toBeLessThanOrEqual(4);
      // Four programs at most hold memory at once; generous for the workers and the allocator.
      expect(growth).toBeLessThan(4 * 64 * MiB + 400 * MiB);
    } finally {
      clearInterval(watcher);
    }
  }, 120_000);
});

describe("output", () => {
  it("the return value counts against the output limit with what was printed", async () => {
    expect(await limitOf(executeCode(NOTHING, `return "x".repeat(300000);`))).toBe("output");
    expect(
      await limitOf(
        executeCode(NOTHING, `console.log("y".repeat(6000)); return "x".repeat(5000);`, {
          maxOutputChars: 10_000,
        }),
      ),
    ).toBe("output");
    const fits = await executeCode(NOTHING, `console.log("y".repeat(4000)); return "x".repeat(5000);`, {
      maxOutputChars: 10_000,
    });
    expect(String(fits.value).length).toBe(5000);
  });

  it("the prelude, evaluated alone in the guest, signals OUTPUT_EXCEEDED with the same value", () => {
    expect(guestPrelude.toString()).toContain(`outputExceeded = ${OUTPUT_EXCEEDED}`);
  });
});

describe("one compiled module, a fresh instance per execution", () => {
  it("compiles QuickJS once per process", async () => {
    expect(await quickjsModule()).toBe(await quickjsModule());
  });

  it("two executions, one after the other, share no state", async () => {
    const first = await executeCode(
      NOTHING,
      `globalThis.left = 42; Object.prototype.polluted = true; Array.prototype.push = null; return 1;`,
    );
    expect(first.value).toBe(1);
    const second = await executeCode(
      NOTHING,
      `const a = []; a.push(1); return [typeof globalThis.left, ({}).polluted === undefined, a.length];`,
    );
    expect(second.value).toEqual(["undefined", true, 1]);
  });
});

describe("execution slots", () => {
  type Op = { kind: "acquire"; caller: number } | { kind: "release"; index: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant("acquire" as const), caller: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant("release" as const), index: fc.nat(40) }),
  );

  it("never run more than the caps, per process and per caller, and start every waiter in the end", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const slots = new ExecutionSlots({ perProcess: 3, perCaller: 2 });
        const held: { caller: number; release: () => void }[] = [];
        let acquired = 0;
        let requested = 0;
        const check = () => {
          const byCaller = new Map<number, number>();
          for (const h of held) byCaller.set(h.caller, (byCaller.get(h.caller) ?? 0) + 1);
          expect(held.length).toBeLessThanOrEqual(3);
          for (const n of byCaller.values()) expect(n).toBeLessThanOrEqual(2);
        };
        const signal = new AbortController().signal;
        for (const step of ops) {
          if (step.kind === "acquire") {
            requested++;
            void slots.acquire(`c${step.caller}`, signal).then((release) => {
              acquired++;
              held.push({ caller: step.caller, release });
            });
          } else if (held.length > 0) {
            const [h] = held.splice(step.index % held.length, 1);
            h?.release();
          }
          await Promise.resolve();
          await Promise.resolve();
          check();
        }
        // Releasing everything lets every waiter run in turn.
        while (acquired < requested) {
          const h = held.shift();
          if (!h) break;
          h.release();
          await Promise.resolve();
          await Promise.resolve();
          check();
        }
        expect(acquired).toBe(requested);
      }),
      { numRuns: 200 },
    );
  });

  it("a waiter whose signal aborts leaves the queue without taking a slot", async () => {
    const slots = new ExecutionSlots({ perProcess: 1, perCaller: 1 });
    const release = await slots.acquire("a", new AbortController().signal);
    const abort = new AbortController();
    const waiting = slots.acquire("b", abort.signal);
    expect(slots.load).toEqual({ running: 1, waiting: 1 });
    abort.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(slots.load).toEqual({ running: 1, waiting: 0 });
    release();
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });
});
