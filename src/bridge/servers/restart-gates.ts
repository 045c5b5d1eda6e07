import { waitAtMost } from "../../util/wait.js";

/**
 * Servers being restarted. While one is, a call to it waits until its new record is current (the old
 * process tree gone), so that it is not sent to the connection being closed; the wait is bounded by
 * the call's timeout and signal, after which the call goes on and meets its own limits.
 */
export class RestartGates {
  readonly #gates = new Map<string, Promise<void>>();

  /** Closes the server's gate; the returned function opens it again (calling it twice is harmless). */
  close(server: string): () => void {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#gates.set(server, gate);
    return () => {
      release();
      if (this.#gates.get(server) === gate) this.#gates.delete(server);
    };
  }

  /**
   * Resolves once the server's gate is open, at most after `ms` or when the signal aborts; undefined
   * when it is open already, so that the common call does not wait a turn for nothing.
   */
  pass(server: string, ms: number, signal?: AbortSignal): Promise<void> | undefined {
    const gate = this.#gates.get(server);
    return gate && waitAtMost(gate, ms, signal);
  }
}
