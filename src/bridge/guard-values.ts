import type { GuardrailCheck } from "../config/guardrail-settings.js";
import { hasHiddenText, hasInstructions, markInstructions, maskHiddenText } from "../policy/guard-scan.js";
import type { SecretMask } from "../util/redact.js";

/**
 * The guardrails' checks over a whole value (arguments, a result): every string inside plain objects
 * and arrays is looked at, except binary payloads (an image's or audio's `data`, a resource's `blob`)
 * and `_meta`, which the model does not read. Object keys are looked at too, never changed.
 */

export interface ValueScanner {
  /** The bridge's secret values and the log redaction's token shapes. */
  readonly secrets: SecretMask;
  /** Skip `data`/`blob` of binary content blocks (results). */
  readonly binary: boolean;
}

function foundIn(text: string, check: GuardrailCheck, scanner: ValueScanner): boolean {
  if (check === "secrets") return scanner.secrets.holds(text);
  if (check === "hiddenText") return hasHiddenText(text);
  return hasInstructions(text);
}

function maskText(text: string, checks: ReadonlySet<GuardrailCheck>, scanner: ValueScanner): string {
  let out = text;
  if (checks.has("hiddenText")) out = maskHiddenText(out);
  if (checks.has("secrets")) out = scanner.secrets.text(out);
  if (checks.has("instructions")) out = markInstructions(out);
  return out;
}

/** Keys whose strings are not text a model reads. */
function skipped(key: string, holder: Record<string, unknown>, scanner: ValueScanner): boolean {
  if (key === "_meta") return true;
  if (!scanner.binary) return false;
  return key === "blob" || (key === "data" && (holder.type === "image" || holder.type === "audio"));
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Every string a model reads inside `value`, keys included, depth first. */
function eachText(value: unknown, scanner: ValueScanner, visit: (text: string) => boolean): boolean {
  if (typeof value === "string") return visit(value);
  if (Array.isArray(value)) return value.some((item) => eachText(item, scanner, visit));
  if (!isPlain(value)) return false;
  for (const [key, item] of Object.entries(value)) {
    if (skipped(key, value, scanner)) continue;
    if (visit(key) || eachText(item, scanner, visit)) return true;
  }
  return false;
}

/** The checks (of `checks`) that find something in `value`. */
export function findIn(
  value: unknown,
  checks: readonly GuardrailCheck[],
  scanner: ValueScanner,
): GuardrailCheck[] {
  return checks.filter((check) => eachText(value, scanner, (text) => foundIn(text, check, scanner)));
}

/** `value` with the findings of `checks` masked in every string it holds (keys kept as they are). */
export function maskIn(value: unknown, checks: ReadonlySet<GuardrailCheck>, scanner: ValueScanner): unknown {
  if (typeof value === "string") return maskText(value, checks, scanner);
  if (Array.isArray(value)) return value.map((item) => maskIn(item, checks, scanner));
  if (!isPlain(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = skipped(key, value, scanner) ? item : maskIn(item, checks, scanner);
  }
  return out;
}
