/** A bounded list that keeps the most recent items (e.g. a server's last stderr lines). */
export class RingBuffer<T> {
  readonly #items: T[] = [];
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  push(item: T): void {
    this.#items.push(item);
    if (this.#items.length > this.#capacity) this.#items.shift();
  }

  toArray(): T[] {
    return [...this.#items];
  }
}
