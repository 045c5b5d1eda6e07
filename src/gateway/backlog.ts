/**
 * Bounds on what the gateway holds for a client that does not read what it is sent: a host that stops
 * reading stdout, an HTTP client that stops reading its response. Without them such a client makes the
 * gateway hold every result, log message and progress notification it is sent until memory runs out.
 */
export interface BacklogLimits {
  /**
   * Bytes a client may leave unread. Past it, notifications (log messages, progress) are dropped and a
   * response other than the first is replaced by a short error. Default 32 MiB.
   */
  readonly maxUnreadBytes?: number;
}

export const DEFAULT_MAX_UNREAD_BYTES = 32 * 1024 * 1024;

/** JSON-RPC error code of a response replaced because its client left too much unread. */
export const UNDELIVERED_RPC_CODE = -32030;

/** JSON-RPC error code of a request line over the stdio message limit. */
export const MESSAGE_TOO_LARGE_RPC_CODE = -32600;

const MiB = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** What a client is told in place of a response it would not have read. */
export function undeliveredMessage(what: string, size: number, unread: number, limit: number): string {
  return (
    `The ${what} (${MiB(size)}) was not sent: this client has ${MiB(unread)} of earlier messages it has ` +
    `not read (limit ${MiB(limit)}). Read the pending responses, then retry.`
  );
}

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
