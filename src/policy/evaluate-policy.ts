import type { PolicyAction, PolicySettings } from "../config/policy-settings.js";
import { type CallFacts, type Matcher, ruleMatcher } from "./policy-match.js";

/**
 * The pure evaluator: a policy's rules in order, the first match decides, else its default. Two
 * policies combine by strictness: the managed policy (a file the user cannot write) and the config's
 * are each evaluated on their own, and the stricter decision wins (allow < limit < ask < deny), so
 * the config can tighten the managed policy but never loosen it.
 */

export type PolicySource = "managed" | "config";

export interface CompiledPolicy {
  readonly source: PolicySource;
  readonly default: "allow" | "deny" | "ask";
  readonly rules: readonly CompiledRule[];
  /** Set when the policy could not be read: it denies everything with this reason. */
  readonly unusable?: string;
}

export interface CompiledRule {
  readonly index: number;
  readonly action: PolicyAction;
  readonly perMinute: number | undefined;
  readonly reason: string | undefined;
  readonly matches: Matcher;
}

/** What one policy says about a call. `index` is undefined when the default decided. */
export interface PolicyVerdict {
  readonly action: PolicyAction;
  readonly source: PolicySource;
  readonly index: number | undefined;
  readonly reason: string | undefined;
  readonly perMinute: number | undefined;
}

export function compilePolicy(settings: PolicySettings, source: PolicySource): CompiledPolicy {
  const rules = (settings.rules ?? []).map((rule, index) => ({
    index,
    action: rule.action,
    perMinute: rule.limit?.perMinute,
    reason: rule.reason,
    matches: ruleMatcher(rule),
  }));
  if (settings.unusable !== undefined)
    return { source, default: "deny", rules: [], unusable: settings.unusable };
  return { source, default: settings.default ?? "allow", rules };
}

/** First match wins; no match is the default. */
export function evaluateOne(policy: CompiledPolicy, facts: CallFacts): PolicyVerdict {
  const { source } = policy;
  for (const rule of policy.rules) {
    if (rule.matches(facts)) {
      const { action, index, reason, perMinute } = rule;
      return { action, source, index, reason, perMinute };
    }
  }
  const reason = policy.unusable;
  return { action: policy.default, source, index: undefined, reason, perMinute: undefined };
}

const STRICTNESS: Record<PolicyAction, number> = { allow: 0, limit: 1, ask: 2, deny: 3 };

/**
 * The verdicts of every policy in force (managed first), strictest first; on a tie the managed one
 * comes first. The decision is the first; every `limit` among them applies (see PolicyEngine).
 */
export function evaluatePolicies(policies: readonly CompiledPolicy[], facts: CallFacts): PolicyVerdict[] {
  const verdicts = policies.map((policy) => evaluateOne(policy, facts));
  if (verdicts.length < 2) return verdicts;
  return verdicts.sort((a, b) => STRICTNESS[b.action] - STRICTNESS[a.action]);
}
