import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientLimiter } from "../../src/apps/gateway/admission/client-limits.js";
import type { ClusterStore } from "../../src/apps/gateway/cluster/cluster-store.js";
import { connectRedisStore } from "../../src/apps/gateway/cluster/redis-store.js";
import { sharedBudget } from "../../src/apps/gateway/cluster/shared-budget.js";
import { silentLogger } from "../../src/util/logger.js";
import { hasRedis, type RedisServer, startRedisServer } from "../helpers/redis-server.js";

/**
 * A call that never ran (refused because the queue is full, or cancelled while it waited for its
 * turn: its client gone, its request timed out, a drain that ended) costs no per-minute budget, on
 * one replica and in the cluster-wide budget the replicas share through Redis.
 */

const LIMITS = { maxConcurrentCalls: 1, maxQueuedCalls: 1, callsPerMinute: 4 };

/** Whether the next call is admitted (it ends at once). */
async function takes(limiter: ClientLimiter, client: string): Promise<boolean | string> {
  const admitted = await limiter.admit(client);
  if (!admitted.ok) return admitted.reason;
  admitted.release();
  return true;
}

/** Runs on `limiter`: one call running, one cancelled while queued, one queued, one refused (queue full). */
async function callsThatNeverRan(limiter: ClientLimiter, client: string) {
  const running = await limiter.admit(client);
  expect(running.ok).toBe(true);
  const gone = new AbortController();
  const cancelled = limiter.admit(client, gone.signal);
  gone.abort();
  expect(await cancelled).toMatchObject({ ok: false, reason: expect.stringMatching(/cancelled/) });
  const queued = limiter.admit(client);
  expect(await limiter.admit(client)).toMatchObject({
    ok: false,
    reason: expect.stringMatching(/wait for their turn/),
  });
  // Cancelled before it was even admitted: nothing spent either.
  expect(await limiter.admit(client, AbortSignal.abort())).toMatchObject({ ok: false });
  return { running, queued };
}

describe("a call that never ran costs no per-minute budget", () => {
  it("without a store: the replica's own bucket gets the calls back", async () => {
    const now = 0;
    const limiter = new ClientLimiter(LIMITS, () => now);
    const { running, queued } = await callsThatNeverRan(limiter, "alice");
    if (running.ok) running.release();
    const turn = await queued;
    expect(turn.ok).toBe(true);
    if (turn.ok) turn.release();
    // Two calls ran: two of the four are left, whatever was refused or cancelled.
    const more = [
      await takes(limiter, "alice"),
      await takes(limiter, "alice"),
      await takes(limiter, "alice"),
    ];
    expect(more).toEqual([true, true, expect.stringMatching(/4 calls per minute/)]);
  });

  describe.skipIf(!hasRedis)("with the Redis store, across two replicas", () => {
    let redis: RedisServer;
    const stores: ClusterStore[] = [];
    const replica = async (id: string) => {
      const store = await connectRedisStore({
        url: redis.url,
        replicaId: id,
        advertiseUrl: () => `http://127.0.0.1:1/${id}`,
        logger: silentLogger,
        // Budgets only: no session record is written here.
        secret: undefined,
      });
      stores.push(store);
      return new ClientLimiter(LIMITS, Date.now, sharedBudget(store, id));
    };
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()));
      redis?.stop();
    });

    it("the calls refused or cancelled on one replica stay in the budget the other spends", async () => {
      const first = await replica("replica-a");
      const second = await replica("replica-b");
      const { running, queued } = await callsThatNeverRan(first, "token:bob");
      // Of the cluster's 4 calls a minute, 2 are spent (one running, one queued): 2 are left on the other.
      const there = [
        await takes(second, "token:bob"),
        await takes(second, "token:bob"),
        await takes(second, "token:bob"),
      ];
      expect(there).toEqual([true, true, expect.stringMatching(/4 calls per minute/)]);
      if (running.ok) running.release();
      const turn = await queued;
      if (turn.ok) turn.release();
    });
  });
});
if (!hasRedis)
  console.log(
    "limit-refund Redis tests skipped: redis-server is not installed (apt-get install redis-server)",
  );
