import { sha256 } from "./audit-chain.js";

/**
 * How arguments and results appear in an audit record: by default a digest (`sha256:<hex>` of their
 * JSON with sorted keys, so the same value always gives the same digest and a security team can
 * check a value it holds against the log without the log holding it); in full only when asked, and
 * then with every known secret masked.
 */

/** JSON with object keys sorted at every level: one text per value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

export function digestOf(value: unknown): string {
  return `sha256:${sha256(canonicalJson(value) ?? "null")}`;
}

/** The value as a record holds it: a digest, or (full) the value with secrets masked by `mask`. */
export function auditValue(value: unknown, full: boolean, mask: <T>(value: T) => T): unknown {
  return full ? mask(value) : digestOf(value);
}
