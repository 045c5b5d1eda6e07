import type { GuardrailCheck } from "../config/guardrail-settings.js";
import { CHECKS_OF, revealHiddenText } from "../policy/guard-scan.js";
import { GuardrailRules } from "../policy/guardrail-rules.js";
import { errorText } from "../util/text-of.js";
import type { BridgeState } from "./bridge-state.js";
import { auditRecord } from "./call-guard.js";
import { findIn, maskIn, type ValueScanner } from "./guard-values.js";

/**
 * The guardrails on what servers say about their tools and prompts (description, title, the input
 * schema's texts, a prompt's arguments), where poisoned descriptions hide: checked for hidden text
 * and instruction-like text when a listing is published. `mask` strips the hidden characters and
 * marks instruction-like phrases in place; `block` (and `ask`, since nobody is asked about a listing)
 * keeps the definition out; `allow` publishes it as sent. Every finding is logged and audited.
 */

export type DefinitionKind = "tool" | "prompt";

const rulesByConfig = new WeakMap<object, GuardrailRules>();

function rulesOf(state: BridgeState): GuardrailRules | undefined {
  const settings = state.config.settings.guardrails;
  if (!settings || settings.unusable) return undefined;
  let rules = rulesByConfig.get(settings);
  if (!rules) {
    rules = new GuardrailRules(settings);
    rulesByConfig.set(settings, rules);
  }
  return rules;
}

/** The definitions to publish: as sent, masked, or left out, as the guardrails say. */
export function screenDefinitions<T extends { readonly name: string }>(
  state: BridgeState,
  server: string,
  kind: DefinitionKind,
  items: readonly T[],
): readonly T[] {
  const rules = rulesOf(state);
  if (!rules) return items;
  const scanner: ValueScanner = { secrets: state.options.secrets, binary: false };
  const out: T[] = [];
  for (const item of items) {
    const { name, ...described } = item;
    const found = findIn(described, CHECKS_OF.description, scanner);
    if (found.length === 0) {
      out.push(item);
      continue;
    }
    const actions = rules.actionsFor(server, name);
    const masks = new Set<GuardrailCheck>();
    let blocked = false;
    for (const check of found) {
      const action = actions[check];
      report(state, {
        server,
        kind,
        name,
        check,
        action,
        hidden: check === "hiddenText" ? described : undefined,
      });
      if (action === "block" || action === "ask") blocked = true;
      else if (action === "mask") masks.add(check);
    }
    if (blocked) continue;
    out.push(masks.size > 0 ? ({ ...(maskIn(described, masks, scanner) as object), name } as T) : item);
  }
  return out;
}

function report(
  state: BridgeState,
  finding: {
    server: string;
    kind: DefinitionKind;
    name: string;
    check: GuardrailCheck;
    action: string;
    hidden: unknown;
  },
): void {
  const { server, kind, name, check, action } = finding;
  const done = action === "block" || action === "ask" ? "kept out" : action === "mask" ? "masked" : "kept";
  // Tag characters spell ASCII: what they said is shown (plain, masked), so a person sees the attack.
  const said = finding.hidden ? revealHiddenText(JSON.stringify(finding.hidden)) : "";
  state.logger.warn(
    `The guardrails found ${check} in the description of ${kind} ${server}/${name}; ${done}`,
    {
      server,
      [kind]: name,
      check,
      action,
      ...(said ? { hidden: state.options.secrets.text(said.slice(0, 200)) } : {}),
    },
  );
  try {
    auditRecord(state, { kind: "guardrail", server, tool: name, phase: kind, check, action, decision: done });
  } catch (problem) {
    state.logger.error("The audit log missed a guardrail decision", { server, error: errorText(problem) });
  }
}
