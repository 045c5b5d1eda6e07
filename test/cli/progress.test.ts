import { describe, expect, it } from "vitest";
import { progressText, startProgress } from "../../src/apps/cli/start-progress.js";

describe("start-up spinner", () => {
  it("does not count failed servers as ready", () => {
    const progress = startProgress([
      { name: "a", state: "connected" },
      { name: "b", state: "failed" },
      { name: "c", state: "connecting" },
      { name: "d", state: "disabled" },
      { name: "e", state: "invalid" },
    ]);
    expect(progress).toEqual({ ready: 1, failed: 1, total: 3, pending: ["c"] });
    expect(progressText(progress)).toBe("1/3 ready, 1 failed");
  });
});
