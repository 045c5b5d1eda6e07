import { entryProblem } from "../errors/entry-problems.js";
import type { Raw } from "./fields.js";
import type { ResourceLimits } from "./model.js";
import { EntryProblem } from "./problem.js";

/** The keys a `limits` table may hold; any other is refused, since a misspelled limit would be lost silently. */
const LIMIT_KEYS = ["memoryMb", "pids", "cpuSeconds"] as const;

/**
 * Reads a stdio entry's `limits` (absent: none). Refused rather than ignored: an unknown key, a value
 * that is not a positive whole number, `cpuPercent` (no delegated cgroup is set up, and a limit that
 * is silently not enforced is worse than none), and `pids` without a sandbox (outside one the kernel
 * counts every process of the user, so the number means nothing for the server).
 */
export function normalizeLimits(value: unknown, sandboxed: boolean): ResourceLimits | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new EntryProblem("limits", entryProblem.limitsNotTable());
  const raw = value as Raw;
  const limits: { -readonly [K in keyof ResourceLimits]: number } = {};
  for (const [key, item] of Object.entries(raw)) {
    if (key === "cpuPercent") throw new EntryProblem("limits.cpuPercent", entryProblem.limitsCpuPercent());
    if (!(LIMIT_KEYS as readonly string[]).includes(key))
      throw new EntryProblem(`limits.${key}`, entryProblem.limitsUnknownKey(key, LIMIT_KEYS));
    if (typeof item !== "number" || !Number.isSafeInteger(item) || item <= 0)
      throw new EntryProblem(`limits.${key}`, entryProblem.limitNotCount(key));
    limits[key as (typeof LIMIT_KEYS)[number]] = item;
  }
  if (limits.pids !== undefined && !sandboxed)
    throw new EntryProblem("limits.pids", entryProblem.limitsPidsUnsandboxed());
  return Object.keys(limits).length > 0 ? limits : undefined;
}
