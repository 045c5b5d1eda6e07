import {
  GUARDRAIL_CHECKS,
  type GuardrailAction,
  type GuardrailCheck,
  type GuardrailSettings,
} from "../config/guardrail-settings.js";
import { globTest } from "./policy-match.js";

/**
 * Which action each guardrail check takes for one server and tool: for each check, the first rule
 * whose globs match and that sets the check decides; else the setting's default. Compiled once per
 * config; the answer is kept per (server, tool), since it is asked on every call.
 */

export type GuardrailActionTable = Readonly<Record<GuardrailCheck, GuardrailAction>>;

interface CompiledRule {
  readonly matches: (server: string, tool: string) => boolean;
  readonly actions: Partial<Record<GuardrailCheck, GuardrailAction>>;
}

export class GuardrailRules {
  readonly #defaults: GuardrailActionTable;
  readonly #rules: readonly CompiledRule[];
  readonly #known = new Map<string, GuardrailActionTable>();

  constructor(settings: GuardrailSettings) {
    this.#defaults = settings.defaults;
    this.#rules = settings.rules.map((rule) => {
      const server = globTest(rule.server ?? "*", false);
      const tool = globTest(rule.tool ?? "*", true);
      const actions: Partial<Record<GuardrailCheck, GuardrailAction>> = {};
      for (const check of GUARDRAIL_CHECKS) if (rule[check]) actions[check] = rule[check];
      return { matches: (s: string, t: string) => server(s) && tool(t), actions };
    });
  }

  actionsFor(server: string, tool: string): GuardrailActionTable {
    const key = `${server}\0${tool}`;
    const known = this.#known.get(key);
    if (known) return known;
    const table = { ...this.#defaults };
    const decided = new Set<GuardrailCheck>();
    for (const rule of this.#rules) {
      if (!rule.matches(server, tool)) continue;
      for (const check of GUARDRAIL_CHECKS) {
        const action = rule.actions[check];
        if (action === undefined || decided.has(check)) continue;
        table[check] = action;
        decided.add(check);
      }
    }
    this.#known.set(key, table);
    return table;
  }
}
