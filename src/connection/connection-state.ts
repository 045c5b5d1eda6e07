import type { ServerState } from "./server-status.js";

/** Allowed state transitions of one server connection; anything else is a bug. */
const transitions: Readonly<Record<ServerState, readonly ServerState[]>> = {
  disabled: ["closed"],
  idle: ["connecting", "closed"],
  connecting: ["connected", "failed", "closed"],
  connected: ["reconnecting", "idle", "failed", "closed"],
  reconnecting: ["connected", "reconnecting", "failed", "closed"],
  // failed -> connected: a background retry of an unreachable remote server succeeded.
  failed: ["connecting", "connected", "closed"],
  closed: [],
  // A config entry that could not be loaded never gets a connection, so it never changes state.
  invalid: [],
};

export function canTransition(from: ServerState, to: ServerState): boolean {
  return transitions[from].includes(to);
}

/** Callers waiting for a connection's state to change, each until its own deadline or abort. */
export class StateWaiters {
  readonly #waiters = new Set<() => void>();

  /** Resolves at the next state change, at the deadline or when the signal aborts, whichever is first. */
  next(deadline: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      signal?.addEventListener("abort", done, { once: true });
      this.#waiters.add(done);
    });
  }

  wakeAll(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
