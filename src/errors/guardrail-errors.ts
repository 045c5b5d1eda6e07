/**
 * The guardrails: a call whose arguments they refused (never sent) and a result they withheld (the
 * call ran). The message is what the model reads, so it says what was found, why it was refused and
 * what to do instead; it never quotes the finding itself.
 */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

/** What a check found, as the model and the audit read it. */
const FOUND: Readonly<Record<string, string>> = {
  secrets: "a credential (a secret value or a token shape)",
  hiddenText: "hidden text (invisible Unicode characters)",
  instructions: "instruction-like text",
  hook: "what the external guardrail check refused",
  unusable: "nothing yet: the guardrails setting cannot be used",
};

export interface GuardrailRefusal {
  readonly server: string;
  readonly tool: string;
  /** What `tool` names (default a tool). */
  readonly kind?: "tool" | "prompt";
  /** The check that refused: `secrets`, `hiddenText`, `instructions`, `hook`, `unusable`. */
  readonly check: string;
  /** Why: `guardrails secrets: block`, `not approved by the user`, the hook's reason or failure. */
  readonly why: string;
}

export function guardrailBlockedCall(fields: GuardrailRefusal): McpBridgeError {
  const { server, tool, check, why } = fields;
  return new McpBridgeError(
    ErrorCode.GuardrailBlocked,
    `The guardrails refused this call of tool "${tool}" of server "${server}": its arguments contain ${FOUND[check] ?? check} (${why}); the call was not sent. Do not retry it with the same arguments: leave the value out or ask the user.`,
    { server, tool },
  );
}

export function guardrailWithheldResult(fields: GuardrailRefusal): McpBridgeError {
  const { server, tool, check, why } = fields;
  const what = fields.kind === "prompt" ? `prompt "${tool}"` : `the result of tool "${tool}"`;
  const ran = fields.kind === "prompt" ? "" : " The call ran;";
  return new McpBridgeError(
    ErrorCode.GuardrailBlocked,
    `The guardrails withheld ${what} of server "${server}": it contains ${FOUND[check] ?? check} (${why}).${ran} Do not ask for it again for the same data; ask the user instead.`,
    { server, tool },
  );
}

/** The `guardrails` setting cannot be used: every call is refused (fail closed) until it is fixed. */
export function guardrailsUnusable(fields: {
  server: string;
  tool: string;
  problem: string;
}): McpBridgeError {
  const { server, tool, problem } = fields;
  return new McpBridgeError(
    ErrorCode.GuardrailBlocked,
    `The "guardrails" setting cannot be used (${problem}), so tool "${tool}" of server "${server}" was not called; every call is refused until the setting is fixed.`,
    { server, tool },
  );
}

/** Why an external check counts as failed, for the refusal and the audit. */
export function guardrailHookFailed(fields: { detail: string }): string {
  return `the external check failed (${fields.detail}) and its failure mode is block`;
}

/** Why an external check failed (the detail of `guardrailHookFailed`), one wording each. */
export const guardrailHookProblem = {
  notJson: () => "its answer is not JSON",
  badShape: () => 'its answer is not { "action": "allow" | "mask" | "block" | "rewrite" }',
  noValue: (action: string) => `its answer "${action}" has no value`,
  status: (status: number) => `HTTP ${status}`,
  tooLarge: () => "its answer is too large",
  exitCode: (code: number | null) => `it exited with code ${code}`,
  timeout: (ms: number) => `no answer within ${ms} ms`,
  notStarted: (detail: string) => `it could not be started: ${detail}`,
};
