export interface BackoffOptions {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Exponential backoff with "equal jitter": half the window is fixed, half random, so reconnect storms
 * of many servers spread out while a single server still waits at least half the nominal delay.
 * `attempt` starts at 1.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const nominal = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  return Math.round(nominal / 2 + (nominal / 2) * random());
}
