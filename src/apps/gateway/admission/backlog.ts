/*
 * Bounds on what the gateway holds for a client that does not read what it is sent: a host that stops
 * reading stdout, an HTTP client that stops reading its response. Without them such a client makes the
 * gateway hold every result, log message and progress notification it is sent until memory runs out.
 * The bound is `maxUnreadBytes` (see GatewayOptions): past it, notifications (log messages, progress)
 * are dropped and a response other than the first is replaced by a short error.
 */

/** Rough size of a message once serialized: string lengths dominate, everything else is small. */
export function approximateSize(value: unknown, depth = 0): number {
  if (typeof value === "string") return value.length + 2;
  if (value === null || typeof value !== "object" || depth > 32) return 8;
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) total += approximateSize(item, depth + 1) + 1;
    return total;
  }
  for (const key in value) {
    total += key.length + 4 + approximateSize((value as Record<string, unknown>)[key], depth + 1);
  }
  return total;
}

/**
 * Bytes each client has been sent over HTTP and not yet read, counted from when a message is built
 * until its HTTP response has been written out or abandoned. A message is refused (nothing counted)
 * when its client already has some unread and this one would pass the limit; the first is always
 * taken, so one result of any size still reaches a client that reads.
 */
export class UnreadBacklog {
  readonly limit: number;
  readonly #unread = new Map<string, number>();
  /** Per client, the size of the last message refused: what made it full (see `full`). */
  readonly #refused = new Map<string, number>();

  /** Whether a client whose last message was refused is full (see `full`): for a channel of one client. */
  readonly #soleClient: boolean;
  constructor(limit: number, options: { readonly soleClient?: boolean } = {}) {
    this.limit = limit;
    this.#soleClient = options.soleClient === true;
  }

  unread(client: string): number {
    return this.#unread.get(client) ?? 0;
  }

  /** Counts `bytes` as unread by `client`, or refuses them (false) when that would pass the limit. */
  take(client: string, bytes: number): boolean {
    const unread = this.unread(client);
    if (unread > 0 && unread + bytes > this.limit) {
      this.#refused.set(client, bytes);
      return false;
    }
    this.#refused.delete(client);
    this.#unread.set(client, unread + bytes);
    return true;
  }

  /**
   * Whether a new call of `client` would only make a result to be refused: its unread bytes are at the
   * limit, or (on a channel of one client, `soleClient`: the stdio host) its last refused message would
   * still not fit. Such a call is failed before it reaches its server, so a host that stopped reading
   * costs no more results made (parsed, copied) for nothing. Over HTTP, clients without auth share one
   * name: one that stopped reading must not fail the calls of the others.
   */
  full(client: string): boolean {
    const unread = this.unread(client);
    if (unread >= this.limit) return true;
    return this.#soleClient && unread > 0 && unread + (this.#refused.get(client) ?? 0) > this.limit;
  }

  /** Bytes taken earlier that were read or abandoned. */
  give(client: string, bytes: number): void {
    const left = this.unread(client) - bytes;
    // An idle client is forgotten, so the map does not grow with every client ever seen.
    if (left > 0) this.#unread.set(client, left);
    else {
      this.#unread.delete(client);
      this.#refused.delete(client);
    }
  }
}
