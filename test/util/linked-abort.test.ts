import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { ErrorCode, type McpBridgeError, startBridge } from "../../src/index.js";
import { forOneCall, isForOneCall, linkAbort } from "../../src/util/linked-abort.js";
import { inProcessEntry } from "../helpers/in-process.js";

describe("linkAbort", () => {
  it("puts one listener on the shared signal however many controllers are linked", () => {
    const shared = new AbortController();
    const links = Array.from({ length: 50 }, () => {
      const own = new AbortController();
      return { own, unlink: linkAbort(shared.signal, own) };
    });
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(1);
    // An unlinked controller is no longer aborted by the shared signal.
    links[0]?.unlink();
    shared.abort(new Error("turn over"));
    expect(links[0]?.own.signal.aborted).toBe(false);
    expect(
      links.slice(1).every((l) => l.own.signal.aborted && l.own.signal.reason.message === "turn over"),
    ).toBe(true);
  });

  it("aborts at once when the signal already has", () => {
    const own = new AbortController();
    linkAbort(AbortSignal.abort("gone"), own);
    expect(own.signal.reason).toBe("gone");
  });
});

describe("forOneCall", () => {
  it("a call's own signal, given to the SDK as it is, still cancels the call upstream", async () => {
    await using bridge = await startBridge({
      servers: { slow: inProcessEntry("slow-tool") },
      env: process.env,
    });
    const abort = new AbortController();
    const signal = forOneCall(abort.signal);
    expect(isForOneCall(signal)).toBe(true);
    expect(isForOneCall(new AbortController().signal)).toBe(false);
    const call = bridge.call("mcp_slow_sleep", { ms: 20_000 }, { signal }).then(
      () => "answered",
      (error: McpBridgeError) => error.code,
    );
    // The call is under way: something listens on its signal, and the server runs it (on a loaded
    // machine the call can still wait for the connection here; an abort then never reaches the server).
    await expect
      .poll(() => getEventListeners(signal, "abort").length, { timeout: 10_000 })
      .toBeGreaterThan(0);
    await expect
      .poll(async () => (await bridge.call("mcp_slow_max_active", {})).text, { timeout: 20_000 })
      .toBe("1");
    abort.abort();
    expect(await call).toBe(ErrorCode.Aborted);
    // The server was told (notifications/cancelled) and stopped the work.
    await expect
      .poll(async () => (await bridge.call("mcp_slow_cancelled", {})).text, { timeout: 20_000 })
      .toBe("1");
  }, 60_000);
});
