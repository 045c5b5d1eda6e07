import type { RestartPolicy } from "../config/model.js";
import { backoffDelay } from "../util/backoff.js";
import { Countdown } from "./keepalive.js";

/**
 * When to try a crashed server again. Each restart waits longer (exponential backoff with jitter) up
 * to `maxAttempts`; the count resets only once a (re)connected server has stayed up for
 * `stablePeriodMs`, so a server that dies right after every handshake still runs out of attempts.
 */
export class Restarts {
  readonly #policy: RestartPolicy;
  readonly #random: (() => number) | undefined;
  readonly #timer = new Countdown();
  readonly #stable = new Countdown();
  #attempt = 0;

  constructor(policy: RestartPolicy, random?: () => number) {
    this.#policy = policy;
    this.#random = random;
  }

  /** A session is up; `stillCurrent` says, after the stable period, whether it is still the live one. */
  connected(stillCurrent: () => boolean): void {
    this.#stable.arm(this.#policy.stablePeriodMs, () => {
      if (stillCurrent()) this.#attempt = 0;
    });
  }

  /** Schedules the next attempt; false when the attempts are used up (the server has failed). */
  schedule(run: () => void): boolean {
    this.#attempt++;
    const { maxAttempts } = this.#policy;
    if (maxAttempts > 0 && this.#attempt > maxAttempts) return false;
    this.#timer.arm(backoffDelay(this.#attempt, this.#policy, this.#random), run);
    return true;
  }

  clear(): void {
    this.#timer.clear();
    this.#stable.clear();
  }
}
