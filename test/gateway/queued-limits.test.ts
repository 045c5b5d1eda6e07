import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Admission, ClientLimiter } from "../../src/apps/gateway/admission/client-limits.js";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

const limits = (maxConcurrentCalls: number, maxQueuedCalls: number, callsPerMinute?: number) => ({
  maxConcurrentCalls,
  maxQueuedCalls,
  callsPerMinute,
});

/** Whether a promise has settled, after the microtasks queued so far ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

const release = (admission: Admission) => {
  if (admission.ok) admission.release();
};

describe("ClientLimiter queue", () => {
  it("queues a client's calls over its limit in order, then refuses past the queue", async () => {
    const limiter = new ClientLimiter(limits(1, 2));
    const first = await limiter.admit("a");
    expect(first.ok).toBe(true);
    const second = limiter.admit("a");
    const third = limiter.admit("a");
    expect(await limiter.admit("a")).toEqual({
      ok: false,
      reason: expect.stringMatching(/at most 1 calls may run at once for one client and 2 more wait/),
      retryAfterSeconds: 1,
    });
    // Another client is not held up by a's queue.
    expect((await limiter.admit("b")).ok).toBe(true);
    expect(await settled(second)).toBe(false);
    release(first);
    release(first);
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(false);
    release(await second);
    expect((await third).ok).toBe(true);
  });

  it("drops a waiting call whose signal aborts, and gives its turn to the next", async () => {
    const limiter = new ClientLimiter(limits(1, 2, 3));
    const first = await limiter.admit("a");
    const controller = new AbortController();
    const cancelled = limiter.admit("a", controller.signal);
    const next = limiter.admit("a");
    controller.abort();
    expect(await cancelled).toEqual({
      ok: false,
      reason: expect.stringMatching(/cancelled/),
      retryAfterSeconds: 1,
    });
    release(first);
    expect((await next).ok).toBe(true);
    // The cancelled call's token came back: 3 per minute, 2 started.
    expect((await limiter.admit("a", AbortSignal.abort())).ok).toBe(false);
    const already = new ClientLimiter(limits(1, 2));
    await already.admit("a");
    expect(await already.admit("a", AbortSignal.abort())).toEqual({
      ok: false,
      reason: expect.any(String),
      retryAfterSeconds: 1,
    });
  });

  it("with no queue refuses at once, as before", async () => {
    const limiter = new ClientLimiter(limits(1, 0));
    expect((await limiter.admit("a")).ok).toBe(true);
    expect((await limiter.admit("a")).ok).toBe(false);
  });
});

/** `serve --stdio` (the built CLI) over the slow-tool fixture, with these extra arguments. */
async function stdioGateway(args: string[]): Promise<Client & AsyncDisposable> {
  const home = emptyHome();
  writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { slow: stdioEntry("slow-tool") } }));
  const client = new Client({ name: "queued-limits-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--stdio", "-c", join(home, "mcp.json"), ...args],
      env: cliEnv(home),
      cwd: home,
      stderr: "pipe",
    }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** Each call's answer text, or the message it was refused with. */
const outcomes = (calls: Promise<{ content?: unknown }>[]) =>
  Promise.all(calls.map((call) => call.then(textOf, (error: Error) => `refused: ${error.message}`)));

describe("serve --stdio limits", () => {
  it("--max-calls 64 lets 32 calls of the one client run at once", async () => {
    // No queue: a call over the limit would be refused, so all 32 meeting upstream proves the limit is 64.
    await using client = await stdioGateway(["--max-calls", "64", "--max-queued", "0"]);
    const calls = Array.from({ length: 32 }, () =>
      client.callTool({ name: "slow_gather", arguments: { count: 32, ms: 20_000 } }),
    );
    expect(await outcomes(calls)).toEqual(Array(32).fill("gathered"));
  }, 60_000);

  it("by default 32 calls in flight all complete: 16 run, the others wait their turn", async () => {
    await using client = await stdioGateway([]);
    const calls = Array.from({ length: 32 }, () =>
      client.callTool({ name: "slow_sleep", arguments: { ms: 300 } }),
    );
    expect(await outcomes(calls)).toEqual(Array(32).fill("slept"));
    expect(textOf(await client.callTool({ name: "slow_max_active", arguments: {} }))).toBe("16");
  }, 60_000);

  it("a call past a full queue is refused with a clear error", async () => {
    await using client = await stdioGateway(["--max-calls", "1", "--max-queued", "1"]);
    // Both end with the connection closed below: settled here, so that end is no unhandled rejection.
    const running = client
      .callTool({ name: "slow_gather", arguments: { count: 2, ms: 20_000 } })
      .catch(() => undefined);
    const waiting = client
      .callTool({ name: "slow_gather", arguments: { count: 1, ms: 1 } })
      .catch(() => undefined);
    // The third is refused while the first runs (it waits for a second gather that cannot start).
    expect(await outcomes([client.callTool({ name: "slow_sleep", arguments: { ms: 1 } })])).toEqual([
      expect.stringMatching(
        /refused: .*Call to slow_sleep refused: at most 1 calls may run at once for one client and 1 more wait for their turn; retry in 1 s/,
      ),
    ]);
    await client.close();
    await Promise.allSettled([running, waiting]);
  }, 60_000);
});

describe("serve --http limits without auth", () => {
  let bridge: Bridge;
  let gateway: Gateway;
  beforeAll(async () => {
    bridge = await startBridge({ servers: { slow: inProcessEntry("slow-tool") } });
    gateway = await startGateway({ bridge, limits: { maxConcurrentCalls: 1, maxQueuedCalls: 0 } });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  it("gives each unauthenticated session its own limit", async () => {
    await using first = await connect(gateway.url, "2025-11-25", undefined);
    await using second = await connect(gateway.url, "2025-11-25", undefined);
    const running = first.callTool({ name: "mcp_slow_gather", arguments: { count: 2, ms: 20_000 } });
    await until(() => gateway.tracker.inFlight > 0);
    // The same session is over its limit (and has no queue) ...
    await expect(first.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1 } })).rejects.toThrow(
      /at most 1 calls may run at once/,
    );
    // ... while another local session is not: both gather calls meet upstream.
    const other = second.callTool({ name: "mcp_slow_gather", arguments: { count: 2, ms: 20_000 } });
    expect((await outcomes([running, other])).sort()).toEqual(["gathered", "gathered"]);
  }, 60_000);

  it("REST calls over separate connections each get their own limit", async () => {
    const base = gateway.url.replace(/\/mcp$/, "");
    const post = (args: unknown, connection: string) =>
      fetch(`${base}/tools/mcp_slow_gather`, {
        method: "POST",
        // Two separate connections, as two local processes would have.
        headers: { "content-type": "application/json", connection },
        body: JSON.stringify(args),
      });
    const one = post({ count: 2, ms: 20_000 }, "close");
    await until(() => gateway.tracker.inFlight > 0);
    const two = post({ count: 2, ms: 20_000 }, "close");
    const answers = await Promise.all([one, two]);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    expect(
      await Promise.all(answers.map(async (res) => ((await res.json()) as { text: string }).text)),
    ).toEqual(["gathered", "gathered"]);
  }, 60_000);
});

describe("REST calls of one client", () => {
  it("wait their turn over the limit, and past the queue are answered 429", async () => {
    await using bridge = await startBridge({ servers: { slow: inProcessEntry("slow-tool") } });
    const gateway = await startGateway({
      bridge,
      tokens: [{ token: "rest-token", client: "rest" }],
      limits: { maxConcurrentCalls: 1, maxQueuedCalls: 1 },
    });
    try {
      const base = gateway.url.replace(/\/mcp$/, "");
      const post = (tool: string, args: unknown) =>
        fetch(`${base}/tools/${tool}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer rest-token" },
          body: JSON.stringify(args),
        });
      // One runs, one waits for it, and the third finds the queue full.
      const running = post("mcp_slow_sleep", { ms: 1500 });
      await until(() => gateway.tracker.inFlight > 0);
      const waiting = post("mcp_slow_sleep", { ms: 1 });
      await until(() => gateway.tracker.inFlight > 1);
      const refused = await post("mcp_slow_sleep", { ms: 1 });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /at most 1 calls may run at once for one client and 1 more wait for their turn/,
      );
      const answers = await Promise.all([running, waiting]);
      expect(answers.map((res) => res.status)).toEqual([200, 200]);
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
