import { availableParallelism } from "node:os";

/** Programs at once in this process: a program is CPU-bound in its worker, so no more than the cores. */
const PER_PROCESS = Math.min(4, Math.max(1, availableParallelism()));

/**
 * How many programs run at once. Each running program holds a worker thread and up to its memory
 * limit of WebAssembly memory (64 MiB by default, plus about 12 MiB for the worker itself), so the
 * process's memory is bounded by these caps, not by how many programs clients send: past them a
 * program waits its turn (in order, within its wall time), as tool calls do past a client's limit.
 * More programs than cores would only share the cores, and leave the host's event loop waiting for
 * one (measured: 24 programs on 2 cores, 130 ms gaps at 4 at once, 41 ms at 2).
 */
export const EXECUTION_CAPS = {
  /** Programs running at once in this process, whoever sent them: the cores, at most 4. */
  perProcess: PER_PROCESS,
  /**
   * Programs running at once for one caller (`CallOptions.caller`; a local caller is `""`): half the
   * process's, at least 1, so that no one client takes every slot.
   */
  perCaller: Math.max(1, Math.floor(PER_PROCESS / 2)),
} as const;

interface Waiting {
  readonly caller: string;
  readonly start: () => void;
}

/**
 * The process's execution slots: a program acquires one before its worker starts and releases it when
 * it ends. A waiting program of a caller at its own cap does not hold up another caller's.
 */
export class ExecutionSlots {
  readonly #perProcess: number;
  readonly #perCaller: number;
  #running = 0;
  readonly #byCaller = new Map<string, number>();
  readonly #waiting: Waiting[] = [];

  constructor(caps: { perProcess: number; perCaller: number } = EXECUTION_CAPS) {
    this.#perProcess = caps.perProcess;
    this.#perCaller = caps.perCaller;
  }

  /** Programs running now, and waiting (for the bench and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /**
   * Resolves with the slot's release once the program may start; rejects with `signal`'s reason when it
   * is aborted first (the slot is then never taken).
   */
  acquire(caller: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#fits(caller)) return Promise.resolve(this.#take(caller));
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        caller,
        start: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(this.#take(caller));
        },
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(entry);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  #fits(caller: string): boolean {
    return this.#running < this.#perProcess && (this.#byCaller.get(caller) ?? 0) < this.#perCaller;
  }

  #take(caller: string): () => void {
    this.#running++;
    this.#byCaller.set(caller, (this.#byCaller.get(caller) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      const left = (this.#byCaller.get(caller) ?? 1) - 1;
      if (left === 0) this.#byCaller.delete(caller);
      else this.#byCaller.set(caller, left);
      this.#next();
    };
  }

  /** Starts the oldest waiting programs that fit now. */
  #next(): void {
    for (let i = 0; i < this.#waiting.length && this.#running < this.#perProcess; ) {
      const entry = this.#waiting[i] as Waiting;
      if (!this.#fits(entry.caller)) {
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      entry.start();
    }
  }
}

/** The slots every execution of this process shares. */
export const executionSlots = new ExecutionSlots();
