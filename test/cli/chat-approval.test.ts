import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalFor } from "../../src/apps/cli/chat/approval.js";
import { planReload } from "../../src/bridge/reload.js";
import { parseConfigText } from "../../src/config/parse.js";

const context = { env: {}, homeDir: "/home/test" };
const hint = fc.constantFrom(undefined, true, false);
const annotations = fc.record(
  { readOnlyHint: hint, destructiveHint: hint },
  { requiredKeys: [] },
) as fc.Arbitrary<{ readOnlyHint?: boolean; destructiveHint?: boolean }>;

describe("chat tool approval: the server's trust first, then the tool's hints", () => {
  it("trust = true always runs, trust = false always asks, unset runs only a read-only, non-destructive tool", () => {
    fc.assert(
      fc.property(annotations, fc.constantFrom(undefined, true, false), (hints, trust) => {
        const approval = approvalFor({ annotations: hints }, trust);
        const readOnly = hints.readOnlyHint === true && hints.destructiveHint !== true;
        expect(approval.run).toBe(trust === true || (trust === undefined && readOnly));
        if (!approval.run && hints.destructiveHint === true) expect(approval.reason).toBe("destructive");
      }),
      { numRuns: 200 },
    );
  });

  it("a tool without annotations asks; trust = false says why a read-only tool asks", () => {
    expect(approvalFor({}, undefined)).toEqual({ run: false, reason: "may-change" });
    expect(approvalFor({ annotations: { readOnlyHint: true } }, false)).toEqual({
      run: false,
      reason: "untrusted",
    });
  });

  it("`trust` is a boolean server key (Gemini CLI's), read from the config", () => {
    const parsed = parseConfigText(
      JSON.stringify({ mcpServers: { a: { command: "x", trust: true }, b: { command: "y" } } }),
      "json",
      context,
    );
    expect(parsed.servers.find((s) => s.name === "a")?.trust).toBe(true);
    expect(parsed.servers.find((s) => s.name === "b")?.trust).toBeUndefined();
    expect(parsed.warnings).toEqual([]);
    const bad = parseConfigText(
      JSON.stringify({ mcpServers: { a: { command: "x", trust: "yes" } } }),
      "json",
      context,
    );
    expect(bad.skipped[0]?.reason).toMatch(/trust.*must be true or false/);
  });

  it("changing only `trust` keeps the server's process on reload", () => {
    const load = (trust: boolean | undefined) =>
      parseConfigText(JSON.stringify({ mcpServers: { a: { command: "x", trust } } }), "json", context)
        .servers;
    const plan = planReload(load(undefined), load(true));
    expect(plan.restarted).toEqual([]);
    expect(plan.refiltered.map((d) => d.name)).toEqual(["a"]);
  });
});
