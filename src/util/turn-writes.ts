import type { Writable } from "node:stream";

/**
 * Coalesces the writes to one stream made in one turn of the event loop. The first leaves at once, so
 * its reader starts on it; the others of the same turn (calls in flight answered by one chunk of
 * input each send their next message) follow together in one write once the turn's microtasks have
 * run. A pipe write is a system call that wakes the reader and costs more than the rest of a message's
 * work: at 32 calls in flight, one write per message made the hop slower than the calls themselves.
 */
export class TurnWrites {
  readonly #stream: Writable;
  #turn = false;
  #corked = false;
  #backlogAtCork = 0;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** `stream.write`, coalesced as above (same return value, same callback). */
  write(chunk: string, done?: (error?: Error | null) => void): boolean {
    if (!this.#turn) {
      this.#turn = true;
      process.nextTick(this.#endTurn);
    } else if (!this.#corked) {
      this.#corked = true;
      this.#backlogAtCork = this.#stream.writableLength;
      this.#stream.cork();
    }
    return this.#stream.write(chunk, done);
  }

  /**
   * The bytes the reader has left unread, as `writableLength` said before this turn's writes were held
   * back: held writes are not the reader's backlog, they have not been offered to it yet.
   */
  get backlog(): number {
    return this.#corked ? this.#backlogAtCork : this.#stream.writableLength;
  }

  readonly #endTurn = (): void => {
    this.#turn = false;
    if (this.#corked) {
      this.#corked = false;
      this.#stream.uncork();
    }
  };
}
