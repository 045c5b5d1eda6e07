import type { ResolvedLimits } from "./gateway-options.js";

/** Per-client limits on tool calls. */
export interface GatewayLimits {
  /** Tool calls one client may have running at once. Default 16. */
  readonly maxConcurrentCalls?: number;
  /** Tool calls one client may start per minute (a token bucket refilled continuously). Default unlimited. */
  readonly callsPerMinute?: number;
}

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

  admit(client: string): { ok: true; release: () => void } | { ok: false; reason: string } {
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
      return { ok: false, reason: `at most ${this.#maxConcurrent} calls may run at once for one client` };
    }
    if (this.#perMinute !== undefined && state.tokens < 1) {
      return { ok: false, reason: `at most ${this.#perMinute} calls per minute for one client` };
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
