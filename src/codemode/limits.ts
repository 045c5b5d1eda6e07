import type { CodeLimitKind } from "../errors/index.js";

/** Limits of one code-mode execution; each has a default (CODE_MODE_LIMITS). */
export interface CodeModeLimits {
  /** Guest CPU time in ms (waiting for tools does not count). Default 5,000. */
  readonly cpuMs?: number;
  /** Guest heap in bytes. Default 64 MiB. */
  readonly memoryBytes?: number;
  /** Characters the program may print (console) plus return. Default 200,000. */
  readonly maxOutputChars?: number;
  /** Tool calls per execution. Default 100. */
  readonly maxToolCalls?: number;
  /** Tool calls running at once; the rest wait their turn. Default 4. */
  readonly maxConcurrentCalls?: number;
  /** Wall time in ms from start to end, tool calls included. Default 60,000. */
  readonly timeoutMs?: number;
}

export type ResolvedLimits = Required<CodeModeLimits> & { readonly stackBytes: number };

export const CODE_MODE_LIMITS: ResolvedLimits = {
  cpuMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputChars: 200_000,
  maxToolCalls: 100,
  maxConcurrentCalls: 4,
  timeoutMs: 60_000,
  // Under the WebAssembly build's own C stack: deeper guest recursion is a RangeError in the guest, not a host failure.
  stackBytes: 256 * 1024,
};

/** The defaults under the given limits; a limit that is not a positive number keeps its default. */
export function resolveLimits(limits: CodeModeLimits = {}): ResolvedLimits {
  const pick = (value: number | undefined, fallback: number) =>
    typeof value === "number" && value > 0 && Number.isFinite(value) ? Math.floor(value) : fallback;
  const d = CODE_MODE_LIMITS;
  return {
    cpuMs: pick(limits.cpuMs, d.cpuMs),
    memoryBytes: pick(limits.memoryBytes, d.memoryBytes),
    maxOutputChars: pick(limits.maxOutputChars, d.maxOutputChars),
    maxToolCalls: pick(limits.maxToolCalls, d.maxToolCalls),
    maxConcurrentCalls: pick(limits.maxConcurrentCalls, d.maxConcurrentCalls),
    timeoutMs: pick(limits.timeoutMs, d.timeoutMs),
    stackBytes: d.stackBytes,
  };
}

/** A limit in words, for the error that says it was reached. */
export function describeLimit(kind: CodeLimitKind, limits: ResolvedLimits): string {
  switch (kind) {
    case "cpu":
      return `${limits.cpuMs} ms of CPU`;
    case "memory":
      return `${Math.round(limits.memoryBytes / (1024 * 1024))} MiB`;
    case "output":
      return `${limits.maxOutputChars} characters`;
    case "toolCalls":
      return `${limits.maxToolCalls} calls`;
    case "wallTime":
      return `${limits.timeoutMs} ms`;
  }
}
