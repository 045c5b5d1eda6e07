import { describe, expect, it } from "vitest";
import { ClientLimiter } from "../../src/apps/gateway/admission/client-limits.js";
import { startGateway } from "../../src/apps/gateway/index.js";
import { startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

describe("per-client limits", () => {
  it("counts concurrent calls per client and releases them", async () => {
    const limiter = new ClientLimiter({
      maxConcurrentCalls: 2,
      maxQueuedCalls: 0,
      callsPerMinute: undefined,
    });
    const a1 = await limiter.admit("a");
    const a2 = await limiter.admit("a");
    expect(a1.ok && a2.ok).toBe(true);
    expect(await limiter.admit("a")).toEqual({
      ok: false,
      reason: expect.stringMatching(/at most 2 calls/),
      retryAfterSeconds: 1,
    });
    expect((await limiter.admit("b")).ok).toBe(true);
    if (a1.ok) {
      a1.release();
      a1.release();
    }
    expect((await limiter.admit("a")).ok).toBe(true);
    expect((await limiter.admit("a")).ok).toBe(false);
  });

  it("refills the per-minute budget continuously", async () => {
    let now = 0;
    const limiter = new ClientLimiter(
      { callsPerMinute: 2, maxConcurrentCalls: 100, maxQueuedCalls: 0 },
      () => now,
    );
    const take = async () => {
      const admitted = await limiter.admit("a");
      if (admitted.ok) admitted.release();
      return admitted.ok;
    };
    expect([await take(), await take(), await take()]).toEqual([true, true, false]);
    // Retry-After: the whole seconds until the bucket holds one call again (30 s at 2 per minute).
    expect(await limiter.admit("a")).toMatchObject({ ok: false, retryAfterSeconds: 30 });
    now += 20_000;
    expect(await limiter.admit("a")).toMatchObject({ ok: false, retryAfterSeconds: 10 });
    now += 9_500;
    expect(await limiter.admit("a")).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    now += 500;
    expect([await take(), await take()]).toEqual([true, false]);
    now += 60_000;
    expect([await take(), await take(), await take()]).toEqual([true, true, false]);
  });

  it("refuses a client's call over its concurrency limit while another client's call runs", async () => {
    await using bridge = await startBridge({ servers: { slow: inProcessEntry("slow-tool") } });
    const gateway = await startGateway({
      bridge,
      limits: { maxConcurrentCalls: 1, maxQueuedCalls: 0 },
      tokens: [
        { token: "one", client: "one" },
        { token: "two", client: "two" },
      ],
    });
    try {
      await using first = await connect(gateway.url, "2026-07-28", "one");
      await using second = await connect(gateway.url, "2025-11-25", "two");
      const running = first.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1000 } });
      await until(() => gateway.tracker.inFlight > 0);
      await expect(first.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1 } })).rejects.toThrow(
        /at most 1 calls may run at once/,
      );
      expect(textOf(await second.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1 } }))).toBe("slept");
      expect(textOf(await running)).toBe("slept");
    } finally {
      await gateway.close();
    }
  }, 30_000);
});
