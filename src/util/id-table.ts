/**
 * A `Map` for the tables a JSON-RPC connection keeps per request (pending response handlers,
 * timeouts, progress handlers), keyed by message ids that only grow.
 *
 * Why not a `Map`: such a table sees one insertion and one deletion per request, so V8 keeps
 * rebuilding its hash table, and a rebuilt table keeps a pointer to its successor (for iterators
 * that were open on it). Once one of those tables has reached the old generation (every full
 * collection moves the current one there), each successor is reachable from it through the old-to-new
 * remembered set, survives every young collection and drags along what its entries held when it was
 * rebuilt: the handlers, and through them each request's promises, closures and result. On a busy
 * connection nearly every request's objects were then copied and promoted until the next full
 * collection (measured: ~3 MB per young collection at 8 calls in flight, young collections 10 to 20
 * times slower, a third of the client's CPU per call).
 *
 * Here keys that are array indexes arriving in increasing order live in an open-addressing hash table
 * of two plain arrays (linear probing, deletion by backward shift, so no tombstones): a rebuilt table
 * has no successor chain, and a table whose live keys stay few is never rebuilt at all. Iteration order
 * (ascending) is then insertion order, as a Map's. The first key that breaks that pattern (a string
 * id, a smaller key, an `undefined` value) moves the entries, in order, into a real Map, which serves
 * from then on until the table is empty again. Behaviour equals a Map's for every sequence of operations (tested as a
 * property), except that iterators walk a snapshot taken when iteration starts, skipping entries
 * deleted since.
 */
export class IdTable<K, V> implements Map<K, V> {
  /** Keys of the hash table while every key was an increasing array index; EMPTY marks a free slot. */
  #keys: number[] = [];
  #values: (V | undefined)[] = [];
  #count = 0;
  /** The largest key inserted since the table was last empty. */
  #max = -1;
  /** Every entry, once the keys stopped fitting the hash table. */
  #map: Map<K, V> | undefined;

  constructor() {
    this.#allocate(INITIAL_CAPACITY);
  }

  get size(): number {
    return this.#map ? this.#map.size : this.#count;
  }

  get [Symbol.toStringTag](): string {
    return "IdTable";
  }

  get(key: K): V | undefined {
    if (this.#map) return this.#map.get(key);
    if (!isIndex(key)) return undefined;
    const slot = this.#find(key);
    return slot < 0 ? undefined : this.#values[slot];
  }

  has(key: K): boolean {
    if (this.#map) return this.#map.has(key);
    return isIndex(key) && this.#find(key) >= 0;
  }

  set(key: K, value: V): this {
    if (!this.#map && isIndex(key) && value !== undefined) {
      const slot = this.#find(key);
      if (slot >= 0) {
        this.#values[slot] = value;
        return this;
      }
      if (key > this.#max) {
        if ((this.#count + 1) * 2 > this.#keys.length) this.#resize(this.#keys.length * 2);
        this.#insert(key, value);
        this.#max = key;
        this.#count++;
        return this;
      }
    }
    this.#spill().set(key, value);
    return this;
  }

  delete(key: K): boolean {
    if (this.#map) {
      const deleted = this.#map.delete(key);
      if (this.#map.size === 0) this.clear();
      return deleted;
    }
    if (!isIndex(key)) return false;
    const slot = this.#find(key);
    if (slot < 0) return false;
    this.#remove(slot);
    if (--this.#count === 0) {
      // An empty table accepts any index as its next key, as a Map would keep its order; one that a
      // burst of requests made large gives its storage back.
      if (this.#keys.length > SHRINK_ABOVE) this.clear();
      this.#max = -1;
    }
    return true;
  }

  clear(): void {
    this.#map = undefined;
    if (this.#count > 0 || this.#keys.length !== INITIAL_CAPACITY) this.#allocate(INITIAL_CAPACITY);
    this.#count = 0;
    this.#max = -1;
  }

  forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  *entries(): MapIterator<[K, V]> {
    for (const key of this.#snapshot()) if (this.has(key)) yield [key, this.get(key) as V];
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  /** The keys in insertion order: ascending while the hash table serves. */
  #snapshot(): K[] {
    if (this.#map) return [...this.#map.keys()];
    return this.#keys.filter((key) => key !== EMPTY).sort((a, b) => a - b) as K[];
  }

  /** The slot holding `key`, or -1. */
  #find(key: number): number {
    const keys = this.#keys;
    const mask = keys.length - 1;
    for (let slot = key & mask; ; slot = (slot + 1) & mask) {
      const found = keys[slot];
      if (found === key) return slot;
      if (found === EMPTY) return -1;
    }
  }

  #insert(key: number, value: V): void {
    const keys = this.#keys;
    const mask = keys.length - 1;
    let slot = key & mask;
    while (keys[slot] !== EMPTY) slot = (slot + 1) & mask;
    // A Map keeps -0 as 0.
    keys[slot] = key === 0 ? 0 : key;
    this.#values[slot] = value;
  }

  /** Frees a slot and shifts back the entries of its probe run that would no longer be found. */
  #remove(slot: number): void {
    const keys = this.#keys;
    const values = this.#values;
    const mask = keys.length - 1;
    let hole = slot;
    for (let next = (hole + 1) & mask; keys[next] !== EMPTY; next = (next + 1) & mask) {
      const home = (keys[next] as number) & mask;
      // The entry at `next` stays only if its home lies cyclically in (hole, next].
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (stays) continue;
      keys[hole] = keys[next] as number;
      values[hole] = values[next];
      hole = next;
    }
    keys[hole] = EMPTY;
    values[hole] = undefined;
  }

  #resize(capacity: number): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#allocate(capacity);
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot] as number;
      if (key !== EMPTY) this.#insert(key, values[slot] as V);
    }
  }

  /** Empty storage of `capacity` slots (a power of two). */
  #allocate(capacity: number): void {
    this.#keys = new Array<number>(capacity).fill(EMPTY);
    this.#values = new Array<V | undefined>(capacity).fill(undefined);
  }

  /** Moves the entries, in insertion order, into a real Map that serves from now on. */
  #spill(): Map<K, V> {
    if (!this.#map) {
      const map = new Map<K, V>();
      for (const key of this.#snapshot()) map.set(key, this.get(key) as V);
      this.clear();
      this.#map = map;
    }
    return this.#map;
  }
}

const EMPTY = -1;
/** A power of two, as every capacity: the slot of a key is its low bits. */
const INITIAL_CAPACITY = 16;
/** An emptied table larger than this starts again at INITIAL_CAPACITY. */
const SHRINK_ABOVE = 1024;

/** A key the hash table takes: an integer from 0 below 2^32 - 1. */
function isIndex(key: unknown): key is number {
  return typeof key === "number" && key >= 0 && key < 4294967295 && Number.isInteger(key);
}
