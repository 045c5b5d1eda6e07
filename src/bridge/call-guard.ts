import type { CallToolResult } from "@modelcontextprotocol/client";
import { AuditLog } from "../audit/audit-log.js";
import { auditValue } from "../audit/audit-record.js";
import { AUDIT_LOG } from "../config/defaults.js";
import type { ResolvedConfig } from "../config/model.js";
import {
  McpBridgeError,
  type PolicyRuleRef,
  policyAskTimedOut,
  policyAskUnanswerable,
  policyDeclined,
  policyDenied,
  policyLimited,
} from "../errors/index.js";
import type { PolicyVerdict } from "../policy/evaluate-policy.js";
import { loadManagedPolicy } from "../policy/managed-policy.js";
import { type PolicyDecision, PolicyEngine } from "../policy/policy-engine.js";
import type { ToolDefinition } from "../registry/tool-definition.js";
import { errorToolResult } from "../results/convert.js";
import type { ToolResult } from "../results/tool-result.js";
import { isSecretName } from "../util/redact.js";
import { errorText } from "../util/text-of.js";
import { upstreamOf } from "../util/upstream.js";
import type { ApprovalAnswer, ApprovalClient, ApproveCall } from "./api.js";
import { askApproval } from "./approvals/ask-approval.js";
import type { BridgeState } from "./bridge-state.js";

/**
 * The trust layer on the one path every tool call takes (calls.ts): the call policy decides on the
 * resolved (server, tool) — never on the name the caller spelled — before anything is sent, and the
 * audit log records the decision and then the call's outcome. A refused call becomes an `isError`
 * result that tells the model why; it never reaches the server. With no policy and no audit log in
 * force this is one map lookup per call.
 */

/** The policy engine and audit log of one config (rebuilt when a reload replaces the config). */
interface Guard {
  readonly config: ResolvedConfig;
  readonly engine: PolicyEngine;
  readonly audit: AuditLog | undefined;
  readonly full: boolean;
  /** Why the `audit` setting cannot be used: every call is denied (fail closed). */
  readonly auditUnusable: string | undefined;
}

const guards = new WeakMap<BridgeState, Guard>();

function guardOf(state: BridgeState): Guard {
  const known = guards.get(state);
  if (known && known.config === state.config) return known;
  const { settings } = state.config;
  const engine = new PolicyEngine(loadManagedPolicy(state.options.env), settings.policy);
  const audit = settings.audit;
  const usable = audit !== undefined && audit.unusable === undefined;
  if (usable && audit.full) {
    // Full records mask the config's secrets and any host variable whose name looks secret.
    const env = Object.entries(state.options.env);
    state.options.secrets.add(env.flatMap(([name, value]) => (value && isSecretName(name) ? [value] : [])));
  }
  const guard: Guard = {
    config: state.config,
    engine,
    // One writer per file across reloads of the same file, so its folder is checked once.
    audit: usable ? sameLog(known?.audit, audit.file, audit.maxBytes ?? AUDIT_LOG.maxBytes) : undefined,
    full: usable ? (audit.full ?? false) : false,
    auditUnusable: audit?.unusable,
  };
  guards.set(state, guard);
  return guard;
}

function sameLog(known: AuditLog | undefined, file: string, maxBytes: number): AuditLog {
  return known && known.file === file && known.maxBytes === maxBytes ? known : new AuditLog(file, maxBytes);
}

export interface GuardRequest {
  readonly caller?: string;
  readonly approveCall?: ApproveCall;
  readonly approvalClient?: ApprovalClient;
  readonly signal?: AbortSignal;
}

/** What the caller does next: return `denied` as the call's result, or send and then report with `done`. */
export type Admission =
  | { readonly denied: ToolResult; readonly done?: undefined }
  | { readonly denied?: undefined; readonly done: (result: ToolResult | undefined, error: unknown) => void };

const NOTHING_TO_DO: Admission = { done: () => undefined };

export async function admitCall(
  state: BridgeState,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  request: GuardRequest,
): Promise<Admission> {
  const guard = guardOf(state);
  if (!guard.engine.active && !guard.audit && guard.auditUnusable === undefined) return NOTHING_TO_DO;
  const { server, tool } = definition;
  const caller = request.caller ?? "";
  const decision = guard.engine.decide(
    { server, tool, annotations: definition.annotations, args, caller },
    Date.now(),
  );
  const refusal = await refusalOf(state, decision, definition, args, caller, request);
  const base = { caller, server, tool, name: definition.name };
  const rule = decision.verdict && ruleOf(decision.verdict);
  const verdict = refusal.error ? "deny" : decision.action === "ask" ? "approved" : decision.action;
  const decided = {
    time: new Date().toISOString(),
    kind: "decision",
    ...base,
    decision: verdict,
    rule: rule ?? null,
    args: guard.audit
      ? auditValue(args, guard.full, (value) => state.options.secrets.deep(value))
      : undefined,
    code: refusal.error?.code,
    // Who answered an `ask`, and through which channel (the host, the client, the page, a webhook).
    approval: refusal.answer && { by: refusal.answer.by, channel: refusal.answer.channel },
  };
  let error = refusal.error;
  if (guard.auditUnusable !== undefined) {
    error = policyDenied({
      server,
      tool,
      rule: { source: "config", index: undefined, reason: guard.auditUnusable },
    });
  }
  try {
    write(state, guard, decided);
  } catch (failure) {
    error ??= failure as McpBridgeError;
  }
  if (error) return { denied: errorToolResult(error, { server, tool }) };
  if (!guard.audit) return NOTHING_TO_DO;
  const started = performance.now();
  return {
    done: (result, failure) => {
      const outcome = result ? (result.isError ? "isError" : "ok") : "error";
      const record = {
        time: new Date().toISOString(),
        kind: "call",
        ...base,
        outcome,
        code: failure instanceof McpBridgeError ? failure.code : undefined,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        result: result
          ? auditValue(resultShape(result), guard.full, (v) => state.options.secrets.deep(v))
          : undefined,
      };
      try {
        write(state, guard, record);
      } catch (problem) {
        // The call already ran: its result stands, and the host hears that the log missed it.
        state.logger.error("The audit log missed a call", { server, tool, error: errorText(problem) });
      }
    },
  };
}

/** Why the policy refuses the call (asking a person for `ask`), or no error when it may run. */
async function refusalOf(
  state: BridgeState,
  decision: PolicyDecision,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  caller: string,
  request: GuardRequest,
): Promise<{ error?: McpBridgeError; answer?: ApprovalAnswer }> {
  const verdict = decision.verdict;
  if (!verdict || decision.action === "allow") return {};
  const { server, tool, name } = definition;
  const rule = ruleOf(verdict);
  if (decision.action === "deny") return { error: policyDenied({ server, tool, rule }) };
  if (decision.action === "limited")
    return { error: policyLimited({ server, tool, rule, perMinute: verdict.perMinute ?? 0 }) };
  const question = { server, tool, name, arguments: args, caller, reason: verdict.reason };
  const answer = await askApproval(state, question, request);
  if (answer.approved) return { answer };
  if (answer.channel === "none") return { error: policyAskUnanswerable({ server, tool, rule }), answer };
  if (answer.channel === "timeout") return { error: policyAskTimedOut({ server, tool, rule }), answer };
  return { error: policyDeclined({ server, tool, rule }), answer };
}

/** One record (a guardrail decision) to the config's audit log and telemetry, as the policy's go. */
export function auditRecord(state: BridgeState, record: Record<string, unknown>): void {
  write(state, guardOf(state), { time: new Date().toISOString(), ...record });
}

function ruleOf(verdict: PolicyVerdict): PolicyRuleRef {
  return { source: verdict.source, index: verdict.index, reason: verdict.reason };
}

/** What a result digest covers: the result as the server sent it (content, structured content, isError). */
function resultShape(result: ToolResult): unknown {
  const raw = upstreamOf<CallToolResult>(result);
  if (raw) return { content: raw.content, structuredContent: raw.structuredContent, isError: raw.isError };
  return { content: result.content, structuredContent: result.structuredContent, isError: result.isError };
}

/** One record to the audit log and, when telemetry records, as a span event. */
function write(state: BridgeState, guard: Guard, record: Record<string, unknown>): void {
  const defined = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  if (guard.audit) guard.audit.append(defined);
  mirrorToTelemetry(state, defined);
}

function mirrorToTelemetry(state: BridgeState, record: Record<string, unknown>): void {
  const telemetry = state.options.telemetry;
  if (!telemetry?.recording()) return;
  const attributes: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === "string" || typeof value === "number") attributes[`mcp_bridge.audit.${key}`] = value;
    else if (value !== null && value !== undefined)
      attributes[`mcp_bridge.audit.${key}`] = JSON.stringify(value);
  }
  const name = `mcp_bridge.audit.${String(record.kind)}`;
  const span = telemetry.api.trace.getActiveSpan();
  if (span) span.addEvent(name, attributes);
  else {
    const own = telemetry.tracer.startSpan(name);
    own.addEvent(name, attributes);
    own.end();
  }
}
