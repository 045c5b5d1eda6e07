/**
 * The call policy and the audit log: a call the policy refused (denied, not approved, over its limit)
 * and an audit log that could not be written or does not verify. Each factory writes its wording here
 * only; a refused call's message is what the model reads, so it says why and what to do instead.
 */
import { ErrorCode, McpBridgeError } from "./error-classes.js";

/** Which rule decided: `managed rule #2`, `rule #1`, or the policy's default. */
export interface PolicyRuleRef {
  readonly source: "managed" | "config";
  /** Index in its rule list, from 0; undefined when the policy's `default` decided. */
  readonly index: number | undefined;
  readonly reason: string | undefined;
}

function ruleText(rule: PolicyRuleRef): string {
  const where = rule.source === "managed" ? "the managed policy" : "the config's policy";
  const which = rule.index === undefined ? `the default of ${where}` : `rule #${rule.index + 1} of ${where}`;
  return rule.reason ? `${which}: ${rule.reason}` : which;
}

export function policyDenied(fields: { server: string; tool: string; rule: PolicyRuleRef }): McpBridgeError {
  const { server, tool, rule } = fields;
  return new McpBridgeError(
    ErrorCode.PolicyDenied,
    `The call policy does not allow tool "${tool}" of server "${server}" (${ruleText(rule)}); the call was not sent. Do not retry it: use another tool or ask the user.`,
    { server, tool },
  );
}

/** `ask` where nobody can be asked: a library without an approval callback, a gateway client. */
export function policyAskUnanswerable(fields: {
  server: string;
  tool: string;
  rule: PolicyRuleRef;
}): McpBridgeError {
  const { server, tool, rule } = fields;
  return new McpBridgeError(
    ErrorCode.PolicyDenied,
    `Tool "${tool}" of server "${server}" needs a person's approval (${ruleText(rule)}), and nobody can be asked here, so the call was denied and not sent. Ask the user to run it where they can approve it.`,
    { server, tool },
  );
}

/** `ask` that reached a person who did not answer in time (or the call was cancelled first). */
export function policyAskTimedOut(fields: {
  server: string;
  tool: string;
  rule: PolicyRuleRef;
}): McpBridgeError {
  const { server, tool, rule } = fields;
  return new McpBridgeError(
    ErrorCode.PolicyDenied,
    `Tool "${tool}" of server "${server}" needs a person's approval (${ruleText(rule)}), and nobody answered in time, so the call was denied and not sent. Ask the user before trying it again.`,
    { server, tool },
  );
}

export function policyDeclined(fields: {
  server: string;
  tool: string;
  rule: PolicyRuleRef;
}): McpBridgeError {
  const { server, tool, rule } = fields;
  return new McpBridgeError(
    ErrorCode.PolicyDenied,
    `The user did not approve this call of tool "${tool}" of server "${server}" (${ruleText(rule)}); it was not sent.`,
    { server, tool },
  );
}

export function policyLimited(fields: {
  server: string;
  tool: string;
  rule: PolicyRuleRef;
  perMinute: number;
}): McpBridgeError {
  const { server, tool, rule, perMinute } = fields;
  return new McpBridgeError(
    ErrorCode.RateLimited,
    `Tool "${tool}" of server "${server}" may be called ${perMinute} times a minute (${ruleText(rule)}); this call was over the limit and was not sent. Wait before calling it again.`,
    { server, tool },
  );
}

/** A policy that cannot be read is enforced as "deny everything" (fail closed), with this as the reason. */
export function policyUnusable(fields: { where: string; problem: string }): string {
  const { where, problem } = fields;
  return `${where} cannot be used (${problem}), so every call is denied until it is fixed`;
}

export function auditWriteFailed(fields: { file: string; detail: string; cause?: unknown }): McpBridgeError {
  const { file, detail, cause } = fields;
  return new McpBridgeError(
    ErrorCode.AuditFailed,
    `The audit log ${file} could not be written (${detail}), so the call was not sent. Fix the file or folder (it must be this user's, not a link, not writable by others) or turn \`audit\` off.`,
    { cause },
  );
}

export function auditFileUnreadable(fields: { file: string; detail: string }): McpBridgeError {
  const { file, detail } = fields;
  return new McpBridgeError(ErrorCode.AuditFailed, `Cannot read the audit log ${file}: ${detail}.`);
}

/** `audit verify` without FILE, and the config has no `audit` setting. */
export function noAuditFile(): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Usage,
    "`audit verify` was given no file, and the config has no `audit` setting to take it from. Name the files (`mcp-bridge audit verify audit.jsonl`), or set `audit` in the config.",
  );
}

/** A request to the approval listener with a body past its bound (answered 400, never read whole). */
export function approvalBodyTooLarge(limit: number): Error {
  return new Error(`The request to the approval listener has a body over ${limit} bytes`);
}
