import { durationNotText, negativeDuration, notDuration } from "../errors/value-errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/**
 * Milliseconds from `30s`, `500ms`, `2m`, `1h`, `1m30s`, or a number in the unit the source format means
 * (seconds for `timeout: 60` and Codex `*_sec`, milliseconds for `*_ms`). Throws a message fit for a
 * config warning.
 */
export function parseDuration(value: unknown, unitForNumbers: "s" | "ms" = "s"): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) throw negativeDuration(value);
    return Math.round(unitForNumbers === "s" ? value * 1000 : value);
  }
  if (typeof value !== "string") throw durationNotText(value);
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseDuration(Number(text), unitForNumbers);
  const pattern = /(\d+(?:\.\d+)?)\s*(ms|sec|min|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    total += Number(match[1]) * (UNITS[match[2] as string] ?? 0);
    matched = pattern.lastIndex;
  }
  if (matched === 0 || matched !== text.length) {
    throw notDuration(value);
  }
  return Math.round(total);
}
