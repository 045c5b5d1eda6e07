import { entryProblem } from "../errors/entry-problems.js";
import { parseDuration } from "../util/duration.js";
import { DEFAULT_RESTART_POLICY } from "./defaults.js";
import { lookup, type Raw } from "./fields.js";
import type { RestartPolicy } from "./model.js";
import { EntryProblem } from "./problem.js";

/** `restart`: true (the default policy), false (off) or a table overriding parts of the policy. */
export function readRestart(value: unknown): RestartPolicy {
  if (value === undefined || value === true) return DEFAULT_RESTART_POLICY;
  if (value === false) return { ...DEFAULT_RESTART_POLICY, enabled: false };
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new EntryProblem("restart", entryProblem.notRestart());
  const table = value as Raw;
  const duration = (keys: string[], fallback: number) => {
    const found = lookup(table, keys);
    if (!found) return fallback;
    try {
      return parseDuration(found.value, "ms");
    } catch (error) {
      throw new EntryProblem(
        `restart.${keys[0]}`,
        entryProblem.valueRejected(`restart.${keys[0]}`, (error as Error).message),
      );
    }
  };
  const attempts = lookup(table, ["maxAttempts", "max_attempts"])?.value;
  if (
    attempts !== undefined &&
    (typeof attempts !== "number" || !Number.isInteger(attempts) || attempts < 0)
  ) {
    throw new EntryProblem("restart.maxAttempts", entryProblem.notAttempts());
  }
  const d = DEFAULT_RESTART_POLICY;
  return {
    enabled: table.enabled === undefined ? true : table.enabled === true,
    maxAttempts: (attempts as number | undefined) ?? d.maxAttempts,
    initialDelayMs: duration(["initialDelay", "initial_delay"], d.initialDelayMs),
    maxDelayMs: duration(["maxDelay", "max_delay"], d.maxDelayMs),
    stablePeriodMs: duration(["stablePeriod", "stable_period"], d.stablePeriodMs),
    retryCeilingMs: duration(["retryCeiling", "retry_ceiling"], d.retryCeilingMs),
  };
}
