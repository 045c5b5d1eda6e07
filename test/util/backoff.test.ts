import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../src/util/backoff.js";
import { Semaphore } from "../../src/util/semaphore.js";

describe("backoffDelay", () => {
  it("stays within half and all of the capped exponential window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, initialDelayMs, extra, random) => {
          const maxDelayMs = initialDelayMs + extra;
          const nominal = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempt - 1, 30));
          const delay = backoffDelay(attempt, { initialDelayMs, maxDelayMs }, () => random);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal / 2));
          expect(delay).toBeLessThanOrEqual(Math.ceil(nominal));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("grows with the attempt until the cap", () => {
    const fixed = () => 1;
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) =>
      backoffDelay(attempt, { initialDelayMs: 100, maxDelayMs: 1000 }, fixed),
    );
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

describe("Semaphore", () => {
  it("admits at most N holders and serves waiters in order", async () => {
    const semaphore = new Semaphore(2);
    const order: number[] = [];
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    const third = semaphore.acquire().then((release) => {
      order.push(3);
      return release;
    });
    const fourth = semaphore.acquire().then((release) => {
      order.push(4);
      return release;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual([3, 4]);
  });

  it("lets a waiter give up through its signal", async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    held();
    const again = await semaphore.acquire();
    again();
  });
});
