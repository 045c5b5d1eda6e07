import type { RestartPolicy } from "../config/model.js";
import { backoffDelay } from "../util/backoff.js";
import { Countdown } from "./health-check.js";

/**
 * When to try a server again. After a crash each restart waits longer (exponential backoff with
 * jitter) up to `maxAttempts`; the count resets only once a (re)connected server has stayed up for
 * `stablePeriodMs`, so a server that dies right after every handshake still runs out of attempts.
 * A remote server that cannot be reached is instead retried in the background, without limit, the
 * wait doubling up to `retryCeilingMs`, until the connection closes.
 */
export class Restarts {
  readonly #policy: RestartPolicy;
  readonly #random: (() => number) | undefined;
  readonly #timer = new Countdown();
  readonly #stable = new Countdown();
  #attempt = 0;
  #backgroundAttempt = 0;
  /** What the pending timer runs, so a call that needs the server can run it at once. */
  #pending: (() => void) | undefined;

  constructor(policy: RestartPolicy, random?: () => number) {
    this.#policy = policy;
    this.#random = random;
  }

  /** A session is up; `stillCurrent` says, after the stable period, whether it is still the live one. */
  connected(stillCurrent: () => boolean): void {
    this.#backgroundAttempt = 0;
    this.#stable.arm(this.#policy.stablePeriodMs, () => {
      if (stillCurrent()) this.#attempt = 0;
    });
  }

  /** Schedules the next attempt; false when the attempts are used up (the server has failed). */
  schedule(run: () => void): boolean {
    this.#attempt++;
    const { maxAttempts } = this.#policy;
    if (maxAttempts > 0 && this.#attempt > maxAttempts) return false;
    this.#arm(backoffDelay(this.#attempt, this.#policy, this.#random), run);
    return true;
  }

  /** Schedules a background retry of an unreachable server: never gives up, waits at most the ceiling. */
  scheduleBackground(run: () => void): void {
    this.#backgroundAttempt++;
    const { initialDelayMs, retryCeilingMs } = this.#policy;
    const window = { initialDelayMs, maxDelayMs: Math.max(initialDelayMs, retryCeilingMs) };
    this.#arm(backoffDelay(this.#backgroundAttempt, window, this.#random), run);
  }

  /** Runs the pending attempt now (a call needs the server); false when none is pending. */
  runNow(): boolean {
    const run = this.#pending;
    if (!run || !this.#timer.pending) return false;
    this.#timer.clear();
    this.#pending = undefined;
    run();
    return true;
  }

  clear(): void {
    this.#timer.clear();
    this.#stable.clear();
    this.#pending = undefined;
  }

  #arm(ms: number, run: () => void): void {
    this.#pending = run;
    this.#timer.arm(ms, () => {
      this.#pending = undefined;
      run();
    });
  }
}
