import type { ResolvedLimits } from "./gateway-options.js";

/** Per-client limits on tool calls. */
export interface GatewayLimits {
  /** Tool calls one client may have running at once. Default 16. */
  readonly maxConcurrentCalls?: number;
  /** Tool calls one client may start per minute (a token bucket refilled continuously). Default unlimited. */
  readonly callsPerMinute?: number;
}

/**
 * A call admitted (with the release of its slot), or refused with the reason and the whole seconds
 * after which a retry may be admitted (HTTP `Retry-After`).
 */
export type Admission =
  | { ok: true; release: () => void }
  | { ok: false; reason: string; retryAfterSeconds: number };

/** The retry hint for a refusal by the concurrency limit. */
const CONCURRENCY_RETRY_SECONDS = 1;

interface ClientState {
  running: number;
  tokens: number;
  refilledAt: number;
}

/**
 * Admits or refuses a client's next call. Pure bookkeeping with an injected clock, so the rules are
 * tested without processes or waiting. Returns a release function, or the reason for a refusal.
 */
export class ClientLimiter {
  readonly #clients = new Map<string, ClientState>();
  readonly #maxConcurrent: number;
  readonly #perMinute: number | undefined;
  readonly #now: () => number;

  constructor(limits: ResolvedLimits, now: () => number = Date.now) {
    this.#maxConcurrent = limits.maxConcurrentCalls;
    this.#perMinute = limits.callsPerMinute;
    this.#now = now;
  }

  admit(client: string): Admission {
    const now = this.#now();
    let state = this.#clients.get(client);
    if (!state) {
      state = { running: 0, tokens: this.#perMinute ?? 0, refilledAt: now };
      this.#clients.set(client, state);
    }
    if (this.#perMinute !== undefined) {
      state.tokens = Math.min(
        this.#perMinute,
        state.tokens + ((now - state.refilledAt) / 60_000) * this.#perMinute,
      );
      state.refilledAt = now;
    }
    if (state.running >= this.#maxConcurrent) {
      // Nothing tells when a running call ends: a short wait, as a hint rather than a promise.
      return {
        ok: false,
        reason: `at most ${this.#maxConcurrent} calls may run at once for one client`,
        retryAfterSeconds: CONCURRENCY_RETRY_SECONDS,
      };
    }
    if (this.#perMinute !== undefined && state.tokens < 1) {
      // The bucket refills continuously: the time until it holds one whole call again (whole ms first,
      // so float dust does not add a second).
      const waitMs = ((1 - state.tokens) / this.#perMinute) * 60_000;
      return {
        ok: false,
        reason: `at most ${this.#perMinute} calls per minute for one client`,
        retryAfterSeconds: Math.max(1, Math.ceil(Math.round(waitMs) / 1000)),
      };
    }
    if (this.#perMinute !== undefined) state.tokens -= 1;
    state.running++;
    const entry = state;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        entry.running--;
        // Forget an idle client whose bucket is full again, so the map does not grow without bound.
        if (entry.running === 0 && (this.#perMinute === undefined || entry.tokens >= this.#perMinute)) {
          this.#clients.delete(client);
        }
      },
    };
  }
}
