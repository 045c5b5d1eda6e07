import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { answerWithin, waitAtMost } from "../../src/util/wait.js";

describe("answerWithin", () => {
  it("tells an answer, a failure, a throw before any promise and no answer in time apart", async () => {
    expect(await answerWithin(async () => 42, 10_000)).toEqual({ kind: "answered", value: 42 });
    const error = new Error("refused");
    expect(await answerWithin(() => Promise.reject(error), 10_000)).toEqual({ kind: "failed", error });
    expect(
      await answerWithin(() => {
        throw error;
      }, 10_000),
    ).toEqual({ kind: "failed", error });
    expect(await answerWithin(() => new Promise(() => undefined), 5)).toEqual({ kind: "late" });
  });

  it("an answer that arrived while this process was blocked past the budget is an answer, not late", async () => {
    // The answer comes from another thread (as a store's reply comes from the network) while this
    // thread is busy for longer than the budget: both the timer and the answer are due in one turn.
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       parentPort.once("message", () => {
         parentPort.postMessage("here");
         Atomics.store(workerData, 0, 1);
       });`,
      { eval: true, workerData: flag },
    );
    try {
      await new Promise((resolve) => worker.once("online", resolve));
      const budgetMs = 20;
      const answering = answerWithin(
        () => new Promise((resolve) => worker.once("message", resolve)),
        budgetMs,
      );
      const started = Date.now();
      worker.postMessage("go");
      // Blocked from the check phase on, so the next turn starts with the (expired) timer.
      setImmediate(() => {
        while (Atomics.load(flag, 0) === 0 || Date.now() - started <= budgetMs * 2) {
          // busy
        }
      });
      expect(await answering).toEqual({ kind: "answered", value: "here" });
    } finally {
      await worker.terminate();
    }
  });

  it("a late failure is not an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", record);
    try {
      let reject: (error: Error) => void = () => undefined;
      const answer = await answerWithin(
        () =>
          new Promise((_resolve, fail) => {
            reject = fail;
          }),
        5,
      );
      expect(answer.kind).toBe("late");
      reject(new Error("too late"));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", record);
    }
  });
});

describe("waitAtMost", () => {
  it("returns at the promise's end, at the bound, or at once for an aborted signal", async () => {
    await waitAtMost(Promise.reject(new Error("ignored")), 10_000);
    await waitAtMost(new Promise(() => undefined), 5);
    await waitAtMost(new Promise(() => undefined), 10_000, AbortSignal.abort());
    const abort = new AbortController();
    const waiting = waitAtMost(new Promise(() => undefined), 10_000, abort.signal);
    abort.abort();
    await waiting;
  });
});
