import { afterEach, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

let bridge: Bridge | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await bridge?.close();
  gateway = undefined;
  bridge = undefined;
});

async function start(servers: Parameters<typeof startBridge>[0] extends infer O ? O : never) {
  bridge = await startBridge(servers);
  gateway = await startGateway({ bridge, drainTimeoutMs: 20_000 });
  return { bridge, gateway };
}

const cancelledUpstream = async (b: Bridge) => Number((await b.call("mcp_slow_cancelled", {})).text);

describe("gateway lifecycle", () => {
  it("tells a 2026-07-28 client tools/list_changed when an upstream server changes its tools", async () => {
    const { gateway } = await start({ servers: { dyn: inProcessEntry("list-changed") } });
    let changed = 0;
    await using client = await connect(gateway.url, "2026-07-28", undefined, () => changed++);
    await client.callTool({ name: "mcp_dyn_add_tool", arguments: { name: "fresh" } });
    await until(() => changed > 0);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("mcp_dyn_fresh");
  }, 30_000);

  it("a 2025-11-25 client gets a session and is told tools/list_changed over it", async () => {
    const { gateway } = await start({ servers: { dyn: inProcessEntry("list-changed") } });
    let changed = 0;
    await using client = await connect(gateway.url, "2025-11-25", undefined, () => changed++);
    expect(client.transport?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await client.callTool({ name: "mcp_dyn_add_tool", arguments: { name: "fresh" } });
    await until(() => changed > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("mcp_dyn_fresh");
  }, 30_000);

  for (const mode of ["2025-11-25", "2026-07-28"] as const)
    it(`a client that disconnects mid-call gets the upstream call cancelled (${mode})`, async () => {
      const { bridge, gateway } = await start({ servers: { slow: inProcessEntry("slow-tool") } });
      const before = await cancelledUpstream(bridge);
      const client = await connect(gateway.url, mode, undefined);
      const pending = client
        .callTool({ name: "mcp_slow_sleep", arguments: { ms: 60_000 } })
        .catch((e: unknown) => e);
      await until(() => gateway.tracker.inFlight > 0);
      await client.close();
      await pending;
      await until(() => gateway.tracker.inFlight === 0, 15_000);
      expect(await cancelledUpstream(bridge)).toBe(before + 1);
    }, 30_000);

  for (const mode of ["2025-11-25", "2026-07-28"] as const)
    it(`passes upstream progress on to the downstream client (${mode})`, async () => {
      const { gateway } = await start({ servers: { slow: inProcessEntry("slow-tool") } });
      await using client = await connect(gateway.url, mode, undefined);
      const seen: number[] = [];
      const result = await client.callTool(
        { name: "mcp_slow_progress", arguments: { steps: 3, intervalMs: 20 } },
        { onprogress: (p) => seen.push(p.progress) },
      );
      expect(textOf(result)).toBe("done after 3 steps");
      expect(seen).toEqual([1, 2, 3]);
    }, 30_000);

  it("drain lets an in-flight call finish, refuses new requests, then closes", async () => {
    const { gateway } = await start({ servers: { slow: inProcessEntry("slow-tool") } });
    await using client = await connect(gateway.url, "2026-07-28", undefined);
    const call = client.callTool({ name: "mcp_slow_sleep", arguments: { ms: 800 } });
    await until(() => gateway.tracker.inFlight > 0);
    const drained = gateway.drain();
    // No new connection is accepted once draining.
    await expect(fetch(new URL("/readyz", gateway.url))).rejects.toThrow();
    expect(textOf(await call)).toBe("slept");
    await drained;
    await expect(fetch(new URL("/healthz", gateway.url))).rejects.toThrow();
  }, 30_000);
});

describe("idle 2025-11-25 sessions", () => {
  it("a session without a request for the idle time is closed; its client gets 404 and initializes again", async () => {
    bridge = await startBridge({
      servers: { normal: inProcessEntry("normal"), slow: inProcessEntry("slow-tool") },
    });
    gateway = await startGateway({ bridge, sessionIdleMs: 300 });
    const post = (body: unknown, session?: string) =>
      fetch(gateway?.url as string, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          ...(session ? { "mcp-session-id": session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "idle", version: "1" } },
    });
    const session = init.headers.get("mcp-session-id") as string;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    await init.text();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    const used = await post(list, session);
    expect(used.status).toBe(200);
    await used.text();
    // No request for longer than the idle time: the session is gone.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const late = await post(list, session);
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({
      error: { message: expect.stringMatching(/initialize again/) },
    });

    // The client that hears 404 opens a new session as usual.
    await using again = await connect(gateway.url, "2025-11-25", undefined);
    expect(textOf(await again.callTool({ name: "mcp_normal_add", arguments: { a: 1, b: 2 } }))).toBe("3");
    // A call running longer than the idle time keeps its session: it is not idle, it is busy.
    const slept = await again.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1_500 } });
    expect(slept.isError).toBeFalsy();
    expect(textOf(await again.callTool({ name: "mcp_normal_add", arguments: { a: 2, b: 2 } }))).toBe("4");
  }, 30_000);
});
