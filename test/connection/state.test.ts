import { describe, expect, it } from "vitest";
import { canTransition } from "../../src/connection/connection-state.js";

describe("connection state machine", () => {
  it("allows the lifecycle a server goes through", () => {
    const path = [
      "idle",
      "connecting",
      "connected",
      "reconnecting",
      "connected",
      "idle",
      "connecting",
      "failed",
    ] as const;
    for (let i = 1; i < path.length; i++)
      expect(canTransition(path[i - 1] as never, path[i] as never)).toBe(true);
  });

  it("never leaves closed and never connects a disabled server", () => {
    for (const to of ["idle", "connecting", "connected", "reconnecting", "failed", "disabled"] as const) {
      expect(canTransition("closed", to)).toBe(false);
    }
    expect(canTransition("disabled", "connecting")).toBe(false);
  });
});
