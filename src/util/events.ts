type Listener = (...args: unknown[]) => void;

/** A minimal typed event emitter: listeners are isolated, so one throwing listener cannot break the emitter. */
export class TypedEmitter<Events extends { [K in keyof Events]: unknown[] }> {
  readonly #listeners = new Map<keyof Events, Set<Listener>>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  on<E extends keyof Events>(event: E, listener: (...args: Events[E]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    const stored = listener as unknown as Listener;
    set.add(stored);
    return () => {
      set.delete(stored);
    };
  }

  emit<E extends keyof Events>(event: E, ...args: Events[E]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(...args);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
