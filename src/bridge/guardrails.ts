import type { CallToolResult } from "@modelcontextprotocol/client";
import type { GuardrailAction, GuardrailCheck, GuardrailSettings } from "../config/guardrail-settings.js";
import type { ResolvedConfig } from "../config/model.js";
import {
  guardrailBlockedCall,
  guardrailHookFailed,
  guardrailsUnusable,
  guardrailWithheldResult,
  type McpBridgeError,
} from "../errors/index.js";
import { CHECKS_OF } from "../policy/guard-scan.js";
import { GuardrailRules } from "../policy/guardrail-rules.js";
import { errorToolResult } from "../results/convert.js";
import type { ToolResult } from "../results/tool-result.js";
import { errorText } from "../util/text-of.js";
import type { ApprovalRoute } from "./approvals/ask-approval.js";
import { askApproval } from "./approvals/ask-approval.js";
import type { BridgeState } from "./bridge-state.js";
import { auditRecord } from "./call-guard.js";
import type { PromptGuard } from "./features/feature-context.js";
import { screenDefinitions } from "./guard-definitions.js";
import { askHook } from "./guard-hook.js";
import { findIn, maskIn, type ValueScanner } from "./guard-values.js";

/**
 * The guardrails on the one path every tool call takes (calls.ts, beside the call policy): the
 * arguments are checked before the call is sent, the result before it is converted, so the library,
 * `chat`, `serve`, `attach` and code mode all get the same checks. Each check that finds something
 * acts as configured for the server and tool (allow: recorded; mask; block; ask a person through the
 * policy's approval entry), then the external hook (if any) has its say; every decision is an audit
 * record. Without a `guardrails` setting this is one map lookup per call.
 */

interface Rails {
  readonly config: ResolvedConfig;
  readonly settings: GuardrailSettings | undefined;
  readonly rules: GuardrailRules | undefined;
}

const rails = new WeakMap<BridgeState, Rails>();

function railsOf(state: BridgeState): Rails {
  const known = rails.get(state);
  if (known && known.config === state.config) return known;
  const settings = state.config.settings.guardrails;
  const rules = settings && !settings.unusable ? new GuardrailRules(settings) : undefined;
  const made = { config: state.config, settings, rules };
  rails.set(state, made);
  return made;
}

export interface ScreenTarget {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
  readonly caller: string;
  /** How a person can be asked for an `ask` (the call's approver, its client, its signal). */
  readonly route: ApprovalRoute;
  /** What `tool` names: a tool (default) or a prompt (no hook: the hook sees tool calls). */
  readonly kind?: "tool" | "prompt";
}

/** The arguments to send (masked as configured), or the refusal to return as the call's result. */
type ScreenedCall =
  | { readonly args: Record<string, unknown>; readonly denied?: undefined }
  | { readonly denied: ToolResult; readonly args?: undefined };

async function screenArguments(
  state: BridgeState,
  target: ScreenTarget,
  args: Record<string, unknown>,
): Promise<ScreenedCall> {
  const { settings, rules } = railsOf(state);
  if (!settings) return { args };
  const { server, tool } = target;
  if (!rules) {
    const error = guardrailsUnusable({ server, tool, problem: settings.unusable ?? "" });
    return { denied: errorToolResult(error, { server, tool }) };
  }
  const screened = await screen(state, rules, target, "request", args, args);
  if (screened.refused) return { denied: errorToolResult(screened.refused, { server, tool }) };
  return { args: screened.value as Record<string, unknown> };
}

/**
 * The guardrails of one call of `definition`: the arguments to send and the check of its result, or
 * the refusal to return as its result.
 */
export async function screenCall(
  state: BridgeState,
  definition: { readonly server: string; readonly tool: string; readonly name: string },
  args: Record<string, unknown>,
  request: { readonly caller?: string; readonly signal?: AbortSignal } & Omit<ApprovalRoute, "signal">,
): Promise<
  | { readonly denied: ToolResult; readonly args?: undefined; readonly screenResult?: undefined }
  | {
      readonly denied?: undefined;
      readonly args: Record<string, unknown>;
      readonly screenResult?: ResultScreen;
    }
> {
  if (!railsOf(state).settings) return { args };
  const target = {
    server: definition.server,
    tool: definition.tool,
    name: definition.name,
    caller: request.caller ?? "",
    route: {
      approveCall: request.approveCall,
      approvalClient: request.approvalClient,
      signal: request.signal,
    },
  };
  const screened = await screenArguments(state, target, args);
  if (screened.denied) return { denied: screened.denied };
  return { args: screened.args, screenResult: resultScreen(state, target, screened.args) };
}

type ResultScreen = (raw: CallToolResult) => Promise<CallToolResult>;

/** The result check of a call whose (screened) arguments were `args`, or undefined without guardrails. */
function resultScreen(
  state: BridgeState,
  target: ScreenTarget,
  args: Record<string, unknown>,
): ResultScreen | undefined {
  const { rules } = railsOf(state);
  if (!rules) return undefined;
  return async (raw) => {
    const screened = await screen(state, rules, target, "result", raw, args);
    if (!screened.refused) return screened.value as CallToolResult;
    const refusal = errorToolResult(screened.refused, target);
    return { content: [...refusal.content], isError: true };
  };
}

interface Screened {
  readonly value: unknown;
  readonly refused?: McpBridgeError;
}

/** The built-in checks, then the hook, on one value (arguments or a result). */
async function screen(
  state: BridgeState,
  rules: GuardrailRules,
  target: ScreenTarget,
  phase: "request" | "result",
  value: unknown,
  args: Record<string, unknown>,
): Promise<Screened> {
  const checks = CHECKS_OF[phase === "request" ? "arguments" : "result"];
  const actions = rules.actionsFor(target.server, target.tool);
  const scanner: ValueScanner = { secrets: state.options.secrets, binary: phase === "result" };
  const found = findIn(value, checks, scanner);
  const masks = new Set<GuardrailCheck>();
  for (const check of found) {
    const action = actions[check];
    const decision = await decide(state, target, phase, check, action, args);
    record(state, target, phase, check, action, decision);
    if (decision === "block" || decision === "declined" || decision === "unanswerable") {
      return { value, refused: refusal(target, phase, check, action, decision) };
    }
    if (decision === "mask") masks.add(check);
  }
  const masked = masks.size > 0 ? maskIn(value, masks, scanner) : value;
  return hooked(state, target, phase, masked, args);
}

type Decision = "allow" | "mask" | "block" | "approved" | "declined" | "unanswerable";

async function decide(
  state: BridgeState,
  target: ScreenTarget,
  phase: "request" | "result",
  check: GuardrailCheck,
  action: GuardrailAction,
  args: Record<string, unknown>,
): Promise<Decision> {
  if (action === "allow" || action === "mask" || action === "block") {
    if (check === "instructions" || action === "allow")
      state.logger.warn(
        `The guardrails flagged ${check} in the ${phase} of ${target.server}/${target.tool}`,
        {
          server: target.server,
          tool: target.tool,
          check,
          action,
        },
      );
    return action;
  }
  const reason = `the ${phase === "request" ? "arguments contain" : "result contains"} ${check} (guardrails)`;
  const question = {
    server: target.server,
    tool: target.tool,
    name: target.name,
    arguments: state.options.secrets.deep(args),
    caller: target.caller,
    reason,
  };
  const answer = await askApproval(state, question, target.route);
  return answer.approved ? "approved" : answer.channel === "none" ? "unanswerable" : "declined";
}

function refusal(
  target: ScreenTarget,
  phase: "request" | "result",
  check: string,
  action: GuardrailAction | undefined,
  decision: Decision,
  given?: string,
): McpBridgeError {
  const why =
    given ??
    (decision === "declined"
      ? "the user did not approve it"
      : decision === "unanswerable"
        ? "it needs a person's approval and nobody can be asked here"
        : action
          ? `guardrails ${check}: ${action}`
          : check);
  const fields = { server: target.server, tool: target.tool, kind: target.kind, check, why };
  return phase === "request" ? guardrailBlockedCall(fields) : guardrailWithheldResult(fields);
}

/** The external check, when one is configured for this phase; its failure is its declared mode. */
async function hooked(
  state: BridgeState,
  target: ScreenTarget,
  phase: "request" | "result",
  value: unknown,
  args: Record<string, unknown>,
): Promise<Screened> {
  const hook = railsOf(state).settings?.hook;
  if (!hook?.phases.includes(phase) || target.kind === "prompt") return { value };
  const question = {
    phase,
    server: target.server,
    tool: target.tool,
    caller: target.caller,
    arguments: phase === "request" ? (value as Record<string, unknown>) : args,
    ...(phase === "result" ? { result: value } : {}),
  };
  try {
    const answer = await askHook(hook, question, state.options.env);
    record(state, target, phase, "hook", undefined, answer.action, answer.reason);
    if (answer.action === "allow") return { value };
    if (answer.action === "block") {
      const why = answer.reason ? `the external check: ${answer.reason}` : "the external check";
      return { value, refused: refusal(target, phase, "hook", undefined, "block", why) };
    }
    return { value: answer.value };
  } catch (error) {
    const detail = state.options.secrets.text(errorText(error));
    const failed = hook.onFailure === "block" ? "block" : "allow";
    record(state, target, phase, "hook", undefined, `failed-${failed}`, detail);
    if (failed === "allow") {
      state.logger.warn(`The guardrail hook failed for ${target.server}/${target.tool}; allowed`, {
        server: target.server,
        tool: target.tool,
        error: detail,
      });
      return { value };
    }
    return {
      value,
      refused: refusal(target, phase, "hook", undefined, "block", guardrailHookFailed({ detail })),
    };
  }
}

/** A guardrail decision as an audit record (the findings' kinds, never their text). */
function record(
  state: BridgeState,
  target: ScreenTarget,
  phase: "request" | "result",
  check: string,
  action: GuardrailAction | undefined,
  decision: string,
  reason?: string,
): void {
  try {
    auditRecord(state, {
      kind: "guardrail",
      of: target.kind ?? "tool",
      caller: target.caller,
      server: target.server,
      tool: target.tool,
      name: target.name,
      phase,
      check,
      action: action ?? null,
      decision,
      reason,
    });
  } catch (problem) {
    state.logger.error("The audit log missed a guardrail decision", {
      server: target.server,
      tool: target.tool,
      error: errorText(problem),
    });
  }
}

/**
 * The guardrails of prompts, for the MCP features (which cannot import this module): a listing's
 * descriptions as tools' are checked, and a prompt's messages as a tool's result (no hook).
 */
export function promptGuard(state: BridgeState): PromptGuard {
  return {
    listing: (server, items) => screenDefinitions(state, server, "prompt", items),
    result: async (server, prompt, args, result) => {
      const { rules } = railsOf(state);
      if (!rules) return result;
      const target = {
        server,
        tool: prompt,
        name: prompt,
        caller: "",
        route: {},
        kind: "prompt" as const,
      };
      const screened = await screen(state, rules, target, "result", result, args);
      if (screened.refused) throw screened.refused;
      return screened.value as typeof result;
    },
  };
}
