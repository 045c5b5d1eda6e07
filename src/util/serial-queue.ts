import { waitAtMost } from "./wait.js";

/** Runs tasks one after another; a failed task does not stop the ones queued after it. */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(task);
    const done = () => {
      this.#pending--;
    };
    this.#tail = result.then(done, done);
    return result;
  }

  /**
   * Waits until the tasks queued now have finished, at most `ms` or until the signal aborts; true when
   * tasks were pending (whether or not they finished in time).
   */
  async settled(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#pending === 0) return false;
    await waitAtMost(this.#tail, ms, signal);
    return true;
  }
}
