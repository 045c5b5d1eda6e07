import type { PolicySettings } from "../config/policy-settings.js";
import {
  type CompiledPolicy,
  compilePolicy,
  evaluatePolicies,
  type PolicyVerdict,
} from "./evaluate-policy.js";
import type { CallFacts } from "./policy-match.js";
import { RateBuckets } from "./rate-limit.js";

/**
 * The policies in force for one bridge (the managed one first, then the config's) and the rate
 * buckets of their `limit` rules. Pure apart from the clock: `decide` takes `now`.
 */

export interface PolicyDecision {
  /** `limited`: a `limit` rule matched and its bucket for this caller is empty. */
  readonly action: "allow" | "deny" | "ask" | "limited";
  /** The verdict that decided (the strictest); undefined when no policy is in force. */
  readonly verdict: PolicyVerdict | undefined;
}

const ALLOW: PolicyDecision = { action: "allow", verdict: undefined };

export class PolicyEngine {
  readonly #policies: readonly CompiledPolicy[];
  readonly #buckets = new RateBuckets();

  constructor(managed: PolicySettings | undefined, config: PolicySettings | undefined) {
    const policies: CompiledPolicy[] = [];
    if (managed) policies.push(compilePolicy(managed, "managed"));
    if (config) policies.push(compilePolicy(config, "config"));
    this.#policies = policies;
  }

  /** Whether any policy is in force (none: every call is allowed without evaluating anything). */
  get active(): boolean {
    return this.#policies.length > 0;
  }

  decide(facts: CallFacts, now: number): PolicyDecision {
    if (this.#policies.length === 0) return ALLOW;
    const verdicts = evaluatePolicies(this.#policies, facts);
    const verdict = verdicts[0] as PolicyVerdict;
    if (verdict.action === "deny" || verdict.action === "ask") return { action: verdict.action, verdict };
    // Allowed: every matching limit (managed and the config's) must have a token for this caller.
    for (const limit of verdicts) {
      if (limit.action !== "limit" || limit.perMinute === undefined) continue;
      const key = `${limit.source}\0${limit.index}\0${facts.caller}`;
      if (!this.#buckets.take(key, limit.perMinute, now)) return { action: "limited", verdict: limit };
    }
    return { action: "allow", verdict };
  }
}
