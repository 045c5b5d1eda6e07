import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { linkAbort } from "../../src/util/linked-abort.js";

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
