/** Per-client limits on tool calls. */
export interface GatewayLimits {
  /** Tool calls one client may have running at once. Default 16. */
  readonly maxConcurrentCalls?: number;
  /**
   * Calls of one client that wait, in order, for a running one to end once `maxConcurrentCalls` run;
   * a call past them is refused. Default 64.
   */
  readonly maxQueuedCalls?: number;
  /** Tool calls one client may start per minute (a token bucket refilled continuously). Default unlimited. */
  readonly callsPerMinute?: number;
}

/** Per-client limits with their defaults applied. */
export interface ResolvedLimits {
  readonly maxConcurrentCalls: number;
  readonly maxQueuedCalls: number;
  /** Undefined: unlimited. */
  readonly callsPerMinute: number | undefined;
}

/** A per-minute budget shared by the gateway's replicas (cluster/redis-store.ts). */
export interface SharedBudget {
  /** One call of `client` spent, or how long until one is; undefined when it cannot say now (the replica then counts alone). */
  spend(
    client: string,
    perMinute: number,
  ): Promise<{ ok: true } | { ok: false; retryAfterMs: number } | undefined>;
  /** Gives back a call `spend` admitted that never ran. */
  refund(client: string, perMinute: number): Promise<void>;
}

/**
 * A call's turn: `release` when it has ended (idempotent), or the reason it was refused with the
 * whole seconds after which a retry may be admitted (HTTP `Retry-After`).
 */
export type Admission =
  | { ok: true; release: () => void }
  | { ok: false; reason: string; retryAfterSeconds: number };

/** The retry hint for a refusal by the concurrency limit: nothing tells when a running call ends. */
const CONCURRENCY_RETRY_SECONDS = 1;

interface ClientState {
  running: number;
  tokens: number;
  refilledAt: number;
  /** Calls waiting for a slot, oldest first; each is handed its slot by `release`. */
  readonly waiting: Array<() => void>;
}

/**
 * Admits, queues or refuses a client's next call. Pure bookkeeping with an injected clock, so the
 * rules are tested without processes or waiting. A call over the concurrency limit waits for a slot
 * (bounded by `maxQueuedCalls` and by its own signal); a call over the per-minute budget is refused at
 * once (waiting for a token could take a minute, longer than a client's own timeout).
 *
 * The per-minute budget is spent when a call is admitted or enters the queue (so a call that reached
 * the front is never refused then), and given back when the call never runs: refused because the
 * queue is full, or cancelled (its client gone, its request cancelled or timed out, a drain that
 * ended) before its turn came. A call that never ran costs no budget, shared or local.
 */
export class ClientLimiter {
  readonly #clients = new Map<string, ClientState>();
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  readonly #perMinute: number | undefined;
  readonly #now: () => number;

  readonly #shared: SharedBudget | undefined;

  /**
   * `shared`: the cluster-wide per-minute budget (see cluster/); while it does not answer, each
   * replica keeps its own bucket as without one.
   */
  constructor(limits: ResolvedLimits, now: () => number = Date.now, shared?: SharedBudget) {
    this.#maxConcurrent = limits.maxConcurrentCalls;
    this.#maxQueued = limits.maxQueuedCalls;
    this.#perMinute = limits.callsPerMinute;
    this.#now = now;
    this.#shared = shared;
  }

  /** Resolves when the call may run, or at once with a refusal (queue full, budget spent, `signal` aborted). */
  async admit(client: string, signal?: AbortSignal): Promise<Admission> {
    const shared = this.#shared;
    const perMinute = this.#perMinute;
    if (shared === undefined || perMinute === undefined || signal?.aborted)
      return this.#admit(client, signal, undefined);
    const answer = await shared.spend(client, perMinute);
    if (answer === undefined) return this.#admit(client, signal, undefined);
    if (!answer.ok) return refused(this.#perMinuteReason(), retrySeconds(answer.retryAfterMs));
    // Best effort (a store that does not answer keeps it spent), bounded like every store command;
    // a refusal is answered once it is given back, so a retry finds it.
    return this.#admit(client, signal, () => shared.refund(client, perMinute).catch(() => undefined));
  }

  /**
   * `refundShared`: the shared budget already admitted the call (no local token is spent); called
   * when the call is refused or cancelled before it runs.
   */
  #admit(
    client: string,
    signal: AbortSignal | undefined,
    refundShared: (() => Promise<void>) | undefined,
  ): Promise<Admission> {
    if (signal?.aborted) return refusedAfter(refundShared?.(), "the call was cancelled");
    const budgeted = refundShared !== undefined;
    const perMinute = budgeted ? undefined : this.#perMinute;
    const state = this.#refilled(client);
    if (perMinute !== undefined && state.tokens < 1) {
      // The bucket refills continuously: the time until it holds one whole call again (whole ms first,
      // so float dust does not add a second).
      const waitMs = ((1 - state.tokens) / perMinute) * 60_000;
      return refused(this.#perMinuteReason(), retrySeconds(waitMs));
    }
    if (state.running < this.#maxConcurrent && state.waiting.length === 0) {
      if (!budgeted) this.#spendToken(state);
      state.running++;
      return Promise.resolve({ ok: true, release: this.#releaser(client, state) });
    }
    if (state.waiting.length >= this.#maxQueued) {
      return refusedAfter(
        refundShared?.(),
        `at most ${this.#maxConcurrent} calls may run at once for one client and ${this.#maxQueued} more wait for their turn`,
      );
    }
    // The token is spent on entering the queue, so a call that reached the front is never refused then.
    if (!budgeted) this.#spendToken(state);
    return new Promise<Admission>((resolve) => {
      const onAbort = () => {
        const at = state.waiting.indexOf(turn);
        if (at === -1) return;
        state.waiting.splice(at, 1);
        if (perMinute !== undefined) state.tokens = Math.min(perMinute, state.tokens + 1);
        this.#forgetIfIdle(client, state);
        void refusedAfter(refundShared?.(), "the call was cancelled while it waited for its turn").then(
          resolve,
        );
      };
      const turn = () => {
        signal?.removeEventListener("abort", onAbort);
        state.running++;
        resolve({ ok: true, release: this.#releaser(client, state) });
      };
      state.waiting.push(turn);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #perMinuteReason(): string {
    return `at most ${this.#perMinute} calls per minute for one client`;
  }

  #refilled(client: string): ClientState {
    const now = this.#now();
    let state = this.#clients.get(client);
    if (!state) {
      state = { running: 0, tokens: this.#perMinute ?? 0, refilledAt: now, waiting: [] };
      this.#clients.set(client, state);
    }
    if (this.#perMinute !== undefined) {
      state.tokens = Math.min(
        this.#perMinute,
        state.tokens + ((now - state.refilledAt) / 60_000) * this.#perMinute,
      );
      state.refilledAt = now;
    }
    return state;
  }

  #spendToken(state: ClientState): void {
    if (this.#perMinute !== undefined) state.tokens -= 1;
  }

  #releaser(client: string, state: ClientState): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.running--;
      // The slot goes to the oldest waiting call of the same client.
      const next = state.waiting.shift();
      if (next) next();
      else this.#forgetIfIdle(client, state);
    };
  }

  /** Forget an idle client whose bucket is full again, so the map does not grow without bound. */
  #forgetIfIdle(client: string, state: ClientState): void {
    if (state.running > 0 || state.waiting.length > 0) return;
    if (this.#perMinute !== undefined && state.tokens < this.#perMinute) return;
    if (this.#clients.get(client) === state) this.#clients.delete(client);
  }
}

/** Whole seconds (at least 1) for a wait in ms; whole ms first, so float dust does not add a second. */
const retrySeconds = (waitMs: number) => Math.max(1, Math.ceil(Math.round(waitMs) / 1000));

const refused = (reason: string, retryAfterSeconds = CONCURRENCY_RETRY_SECONDS): Promise<Admission> =>
  Promise.resolve({ ok: false, reason, retryAfterSeconds });

/** A refusal of a call that never ran, answered once its shared budget is given back (`refund`). */
const refusedAfter = async (refund: Promise<void> | undefined, reason: string): Promise<Admission> => {
  await refund;
  return { ok: false, reason, retryAfterSeconds: CONCURRENCY_RETRY_SECONDS };
};
