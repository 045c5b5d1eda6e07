import { describe, expect, it } from "vitest";
import { expand } from "../../src/config/env.js";
import { parseDuration } from "../../src/util/duration.js";

describe("variable expansion", () => {
  const context = {
    env: { TOKEN: "abc", EMPTY: "", LOOP: "${LOOP}" },
    homeDir: "/home/u",
    workspaceFolder: "/ws",
    configDir: "/ws/.vscode",
  };
  it("expands ${VAR}, ${VAR:-default}, ${env:VAR}, ${workspaceFolder}, ${configDir} and a leading ~/", () => {
    expect(expand("Bearer ${TOKEN}", context)).toEqual({ ok: true, value: "Bearer abc" });
    expect(expand("${MISSING:-fallback}", context)).toEqual({ ok: true, value: "fallback" });
    expect(expand("${EMPTY:-used-when-empty}", context)).toEqual({ ok: true, value: "used-when-empty" });
    expect(expand("${EMPTY}", context)).toEqual({ ok: true, value: "" });
    expect(expand("${env:TOKEN}", context)).toEqual({ ok: true, value: "abc" });
    expect(expand("${workspaceFolder}/x", context)).toEqual({ ok: true, value: "/ws/x" });
    expect(expand("${configDir}/x", context)).toEqual({ ok: true, value: "/ws/.vscode/x" });
    expect(expand("~/data", context)).toEqual({ ok: true, value: "/home/u/data" });
    expect(expand("a~/b", context)).toEqual({ ok: true, value: "a~/b" });
  });

  it("reports an unset variable by name and never loops on self-references", () => {
    expect(expand("x ${NOPE} y", context)).toEqual({ ok: false, reason: "unset", variable: "NOPE" });
    expect(expand("${input:key}", context)).toEqual({ ok: false, reason: "input", variable: "input:key" });
    expect(expand("${LOOP}", context)).toEqual({ ok: true, value: "${LOOP}" });
  });
});

describe("durations", () => {
  it("parses numbers in the source's unit and suffixed strings", () => {
    expect(parseDuration(60)).toBe(60_000);
    expect(parseDuration(1.5)).toBe(1500);
    expect(parseDuration(250, "ms")).toBe(250);
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("2m")).toBe(120_000);
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("1m30s")).toBe(90_000);
    expect(parseDuration("45")).toBe(45_000);
  });

  it("rejects what is not a duration", () => {
    for (const bad of ["soon", "5 parsecs", "", -1, Number.NaN, "10x"])
      expect(() => parseDuration(bad)).toThrow();
  });
});
