import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PolicyRule, PolicySettings } from "../../src/config/policy-settings.js";
import { compilePolicy, evaluateOne, evaluatePolicies } from "../../src/policy/evaluate-policy.js";
import { PolicyEngine } from "../../src/policy/policy-engine.js";
import type { CallFacts } from "../../src/policy/policy-match.js";

/** A glob the slow way: `*` any run, `?` one character, by recursion over both strings. */
function globMatches(glob: string, text: string): boolean {
  if (glob === "") return text === "";
  const [head, rest] = [glob[0], glob.slice(1)];
  if (head === "*") return [...Array(text.length + 1).keys()].some((i) => globMatches(rest, text.slice(i)));
  if (text === "") return false;
  return (head === "?" || head === text[0]) && globMatches(rest, text.slice(1));
}

const MCP_DEFAULTS: Record<string, (a: Record<string, unknown>) => unknown> = {
  readOnlyHint: () => false,
  destructiveHint: (a) => a.readOnlyHint !== true,
  idempotentHint: () => false,
  openWorldHint: () => true,
};

/** The reference: the first rule whose every condition holds decides, else the default. */
function reference(policy: PolicySettings, facts: CallFacts): { action: string; index: number | undefined } {
  const rules = policy.rules ?? [];
  for (const [index, rule] of rules.entries()) {
    const annotations = (facts.annotations ?? {}) as Record<string, unknown>;
    const ok =
      (rule.server === undefined || globMatches(rule.server.toLowerCase(), facts.server.toLowerCase())) &&
      (rule.tool === undefined || globMatches(rule.tool.toLowerCase(), facts.tool.toLowerCase())) &&
      (rule.caller === undefined || globMatches(rule.caller, facts.caller)) &&
      Object.entries(rule.annotations ?? {}).every(
        ([hint, wanted]) => (annotations[hint] ?? MCP_DEFAULTS[hint]?.(annotations)) === wanted,
      ) &&
      (rule.args ?? []).every((match) => {
        const value = (facts.args as Record<string, unknown>)[match.path.slice(2)];
        if (value === undefined) return false;
        const text = typeof value === "string" ? value : JSON.stringify(value);
        if (match.glob !== undefined) return globMatches(match.glob, text);
        if (match.regex !== undefined) return new RegExp(match.regex).test(text);
        return true;
      });
    if (ok) return { action: rule.action, index };
  }
  return { action: policy.default ?? "allow", index: undefined };
}

const names = fc.constantFrom("fs", "FS", "web", "f*", "*", "w?b", "*s", "x", "web-*");
const tools = fc.constantFrom(
  "delete_file",
  "Delete_File",
  "read_file",
  "delete_*",
  "*_file",
  "*",
  "re?d_file",
);
const callers = fc.constantFrom("", "alice", "bob", "a*", "*", "ci-*", "(x)|[y]{2}.+$^\\");
const argument = fc
  .record(
    {
      path: fc.constantFrom("$.path", "$.mode"),
      glob: fc.constantFrom("/etc/*", "*.env", "*", "/home/?"),
      regex: fc.constantFrom("^/etc", "\\.env$", "x", "[0-9]+"),
    },
    { requiredKeys: ["path"] },
  )
  .map((match) =>
    match.glob !== undefined && match.regex !== undefined ? { path: match.path, glob: match.glob } : match,
  );
const rule: fc.Arbitrary<PolicyRule> = fc.record(
  {
    server: names,
    tool: tools,
    caller: callers,
    annotations: fc.dictionary(
      fc.constantFrom("readOnlyHint", "destructiveHint", "openWorldHint", "idempotentHint"),
      fc.boolean(),
      { maxKeys: 2 },
    ),
    args: fc.array(argument, { maxLength: 2 }),
    action: fc.constantFrom("allow", "deny", "ask"),
    reason: fc.string({ maxLength: 5 }),
  },
  { requiredKeys: ["action"] },
);
const policy: fc.Arbitrary<PolicySettings> = fc.record({
  default: fc.constantFrom("allow", "deny", "ask"),
  rules: fc.array(rule, { maxLength: 6 }),
});
const facts: fc.Arbitrary<CallFacts> = fc.record({
  server: fc.constantFrom("fs", "web", "Fs", "web-2"),
  tool: fc.constantFrom("delete_file", "read_file", "DELETE_FILE", "list"),
  caller: fc.constantFrom("", "alice", "bob", "ci-1", "(x)|[y]{2}.+$^\\"),
  annotations: fc.option(
    fc.dictionary(fc.constantFrom("readOnlyHint", "destructiveHint", "openWorldHint"), fc.boolean(), {
      maxKeys: 3,
    }),
    { nil: undefined },
  ),
  args: fc.dictionary(
    fc.constantFrom("path", "mode"),
    fc.oneof(fc.constantFrom("/etc/passwd", "/home/a", "a.env", "x1", ""), fc.integer({ min: 0, max: 99 })),
  ),
});

describe("the policy evaluator", () => {
  it("decides as the reference evaluator does, for any rule list and call", () => {
    fc.assert(
      fc.property(policy, facts, (settings, call) => {
        const verdict = evaluateOne(compilePolicy(settings, "config"), call);
        const expected = reference(settings, call);
        expect({ action: verdict.action, index: verdict.index }).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("lets the config tighten the managed policy but never loosen it", () => {
    const strictness = { allow: 0, limit: 1, ask: 2, deny: 3 } as const;
    fc.assert(
      fc.property(policy, policy, facts, (managed, config, call) => {
        const [decided] = evaluatePolicies(
          [compilePolicy(managed, "managed"), compilePolicy(config, "config")],
          call,
        );
        const fromManaged = reference(managed, call).action as keyof typeof strictness;
        const fromConfig = reference(config, call).action as keyof typeof strictness;
        const action = decided?.action as keyof typeof strictness;
        expect(strictness[action]).toBe(Math.max(strictness[fromManaged], strictness[fromConfig]));
        if (fromManaged === "deny") expect(decided?.source).toBe("managed");
      }),
      { numRuns: 300 },
    );
  });

  it("denies every call when a policy cannot be read", () => {
    const engine = new PolicyEngine({ default: "deny", rules: [], unusable: "bad" }, { default: "allow" });
    const decision = engine.decide(
      { server: "a", tool: "b", annotations: undefined, args: {}, caller: "" },
      0,
    );
    expect(decision.action).toBe("deny");
    expect(decision.verdict?.reason).toBe("bad");
  });

  it("limits per rule and caller with a bucket that refills over the minute", () => {
    const engine = new PolicyEngine(undefined, { rules: [{ action: "limit", limit: { perMinute: 2 } }] });
    const call = (caller: string): CallFacts => ({
      server: "s",
      tool: "t",
      annotations: undefined,
      args: {},
      caller,
    });
    expect([0, 1, 2].map((t) => engine.decide(call("a"), t).action)).toEqual(["allow", "allow", "limited"]);
    expect(engine.decide(call("b"), 3).action).toBe("allow");
    expect(engine.decide(call("a"), 30_000).action).toBe("allow");
    expect(engine.decide(call("a"), 30_001).action).toBe("limited");
  });
});
