import { isSecretName, type SecretMask } from "../../util/redact.js";
import type { CallApprovalRequest } from "../api.js";

/**
 * An approval question as a person reads it, wherever it reaches them (a client's form, the local
 * page, a webhook): the tool, its arguments with secrets masked, and who asks. Arguments go through
 * the log redaction (known secrets, token shapes, URL passwords) and, on top, any value under a
 * secret-looking key (`apiKey`, `password`) is masked whole: a person approves what the call does,
 * never needs the credential to decide.
 */

/** Longest argument text shown; a person cannot judge more, and a webhook body stays small. */
const MAX_ARGUMENT_CHARS = 4000;
const MASK = "***";

/** What every channel shows (the question's JSON for a webhook). */
export interface ShownQuestion {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
  readonly arguments: unknown;
  /** The caller's identity; `local` for a local caller. */
  readonly caller: string;
  readonly reason: string | undefined;
}

export function shownQuestion(request: CallApprovalRequest, secrets: SecretMask): ShownQuestion {
  const { server, tool, name, caller, reason } = request;
  return {
    server,
    tool,
    name,
    arguments: secrets.deep(maskSecretKeys(request.arguments)),
    caller: caller === "" ? "local" : caller,
    reason,
  };
}

function maskSecretKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecretKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      isSecretName(key) && item !== null && typeof item !== "object" ? MASK : maskSecretKeys(item),
    ]),
  );
}

/** The arguments as shown: indented JSON, cut at MAX_ARGUMENT_CHARS. */
export function argumentText(question: ShownQuestion): string {
  const text = JSON.stringify(question.arguments, null, 2) ?? "{}";
  return text.length > MAX_ARGUMENT_CHARS ? `${text.slice(0, MAX_ARGUMENT_CHARS)}\n... (cut)` : text;
}

/** The question as one message (a form elicitation's, a URL elicitation's). */
export function questionText(question: ShownQuestion): string {
  const lines = [
    `Allow tool "${question.tool}" of server "${question.server}"?`,
    `Asked by: ${question.caller}`,
  ];
  if (question.reason) lines.push(`Why approval is needed: ${question.reason}`);
  lines.push(`Arguments: ${argumentText(question)}`);
  return lines.join("\n");
}
