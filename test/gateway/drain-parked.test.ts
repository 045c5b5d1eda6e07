import { afterEach, describe, expect, it } from "vitest";
import { modernToolCall } from "../../bench/cluster/modern-call.js";
import { type Gateway, RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";

let bridge: Bridge | undefined;
let gateway: Gateway | undefined;
let forwarder: RequestForwarder | undefined;

afterEach(async () => {
  forwarder?.rounds.close();
  await gateway?.close();
  await bridge?.close();
  gateway = undefined;
  bridge = undefined;
});

describe("drain with a parked call", () => {
  it("waits for a call parked for its client's next round, answers its retry, refuses new calls", async () => {
    forwarder = new RequestForwarder();
    bridge = await startBridge({
      servers: { secret: inProcessEntry("asks-for-secret") },
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
    });
    gateway = await startGateway({ bridge, forwarder, drainTimeoutMs: 20_000 });
    const url = gateway.url;
    // A 2025-era upstream asks mid-call: the call is parked here until the client's retry.
    const first = await modernToolCall(url, { name: "mcp_secret_login" });
    expect(first.result?.resultType).toBe("input_required");
    const requestState = first.result?.requestState as string;
    expect(forwarder.rounds.parkedCount).toBe(1);

    let drained = false;
    const drain = gateway.drain().then(() => {
      drained = true;
    });
    // A new call is refused while draining...
    const refused = await modernToolCall(url, { name: "mcp_secret_login" });
    expect(refused.status).toBe(503);
    // ...a retry is served, but one naming no call is refused as ever, never run as a new call...
    const forged = await modernToolCall(url, {
      name: "mcp_secret_login",
      retry: { requestState: "not-a-parked-call" },
    });
    expect(forged.error?.message).toMatch(/requestState/);
    expect(forged.result).toBeUndefined();
    // ...but the drain is still waiting for the parked call, whose retry is answered.
    expect(drained).toBe(false);
    const resumed = await modernToolCall(url, {
      name: "mcp_secret_login",
      retry: {
        requestState,
        inputResponses: { upstream: { action: "accept", content: { apiKey: "k-42" } } },
      },
    });
    expect(resumed.result?.content?.[0]?.text).toContain("k-42");
    await drain;
    expect(forwarder.rounds.parkedCount).toBe(0);
    await expect(fetch(new URL("/healthz", url))).rejects.toThrow();
  }, 30_000);

  it("a parked call whose client never returns is waited for only up to the drain bound", async () => {
    forwarder = new RequestForwarder();
    bridge = await startBridge({
      servers: { secret: inProcessEntry("asks-for-secret") },
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
    });
    gateway = await startGateway({ bridge, forwarder, drainTimeoutMs: 300 });
    const first = await modernToolCall(gateway.url, { name: "mcp_secret_login" });
    expect(first.result?.resultType).toBe("input_required");
    await gateway.drain();
    await expect(fetch(new URL("/healthz", gateway.url))).rejects.toThrow();
  }, 30_000);
});
