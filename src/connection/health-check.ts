/**
 * The timers that watch a live session: a health-check ping at an interval, and an idle timeout
 * that retires a session nobody used for a while. Neither keeps the host process alive.
 */

/** A one-shot timer that can be re-armed and cleared; arming replaces any pending run. */
export class Countdown {
  #timer: NodeJS.Timeout | undefined;

  arm(ms: number, run: () => void): void {
    this.clear();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      run();
    }, ms);
    this.#timer.unref();
  }

  clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  get pending(): boolean {
    return this.#timer !== undefined;
  }
}

/** Pings at an interval; one ping at a time, each bounded by the interval (at most 10 s). */
export class HealthCheck {
  #timer: NodeJS.Timeout | undefined;

  start(
    intervalMs: number,
    ping: (timeoutMs: number) => Promise<unknown>,
    onFailure: (error: unknown) => void,
  ): void {
    this.stop();
    if (intervalMs <= 0) return;
    let pinging = false;
    this.#timer = setInterval(() => {
      if (pinging) return;
      pinging = true;
      ping(Math.min(intervalMs, 10_000))
        .catch(onFailure)
        .finally(() => {
          pinging = false;
        });
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** Retires the session after `idleTimeoutMs` without calls; calls in flight hold it off. */
export class IdleTimer {
  readonly #countdown = new Countdown();

  /** Arms the timer when idling applies; `retire` runs once the server stayed unused for the timeout. */
  arm(idleTimeoutMs: number | undefined, busy: boolean, retire: () => void): void {
    if (!idleTimeoutMs || busy) return;
    this.#countdown.arm(idleTimeoutMs, retire);
  }

  clear(): void {
    this.#countdown.clear();
  }
}
