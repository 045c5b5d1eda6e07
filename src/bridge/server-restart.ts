import type { ServerStatus } from "../connection/server-status.js";
import type { McpBridgeError } from "../errors/index.js";
import { waitAtMost } from "../util/wait.js";
import type { SerialQueue } from "./reload.js";
import type { ServerRecord } from "./server-record.js";

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

/** What restarting a server needs of its bridge. */
export interface RestartHost {
  /** Why NAME cannot be restarted now (the bridge closing, an unknown or disabled server), if so. */
  readonly refusal: (name: string) => McpBridgeError | undefined;
  /** The bridge's reload queue: a restart changes the servers as a reload does, one at a time. */
  readonly reloads: SerialQueue;
  /** Opens a fresh record for NAME and makes it current, the old one closed first (runs in the queue). */
  readonly replace: (name: string) => Promise<ServerRecord>;
}

/**
 * `bridge.restart(name)`: stops the server (its process tree is gone before the new one starts) and
 * connects it again on a fresh connection. Calls made meanwhile wait at the server's gate; a second
 * restart of the same server while one is under way shares it.
 */
export class ServerRestarts {
  readonly gates = new RestartGates();
  readonly #host: RestartHost;
  readonly #underWay = new Map<string, Promise<ServerStatus>>();

  constructor(host: RestartHost) {
    this.#host = host;
  }

  restart(name: string): Promise<ServerStatus> {
    const running = this.#underWay.get(name);
    if (running) return running;
    const restarting = this.#restartOnce(name).finally(() => this.#underWay.delete(name));
    this.#underWay.set(name, restarting);
    return restarting;
  }

  async #restartOnce(name: string): Promise<ServerStatus> {
    const refuse = () => {
      const refusal = this.#host.refusal(name);
      if (refusal) throw refusal;
    };
    refuse();
    // Calls made from now on wait until the old process tree is gone and the new record is current.
    const swapped = this.gates.close(name);
    try {
      const record = await this.#host.reloads.run(async () => {
        refuse(); // a reload may have changed the config meanwhile
        return this.#host.replace(name);
      });
      swapped();
      await record.connect();
      return record.status();
    } finally {
      swapped();
    }
  }
}
