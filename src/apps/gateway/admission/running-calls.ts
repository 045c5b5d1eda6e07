import type { RequestId } from "@modelcontextprotocol/server";

/**
 * The tool calls a fast path runs on one server instance's connection, by request id: what a
 * `notifications/cancelled` of that connection or its end aborts, as the SDK's Protocol aborts its
 * own handlers. Held by the instance (see forwarding/served-tool-call.ts `GatewayInstance`), so the session
 * table and the fast paths both reach it without importing each other.
 */
export class RunningCalls {
  readonly #calls = new Map<RequestId, AbortController>();

  /** Registers a call; the returned function forgets it (once it answered). */
  add(id: RequestId, abort: AbortController): () => void {
    this.#calls.set(id, abort);
    return () => {
      if (this.#calls.get(id) === abort) this.#calls.delete(id);
    };
  }

  /** A `notifications/cancelled` the client sent aborts the call it names (anything else is ignored). */
  cancel(message: unknown): void {
    const note = message as { method?: unknown; params?: { requestId?: unknown } } | null;
    if (note?.method !== "notifications/cancelled" || typeof note.params !== "object") return;
    const target = note.params?.requestId;
    if (typeof target === "string" || typeof target === "number") this.#calls.get(target)?.abort();
  }

  /** The connection ended: every call still running is cancelled upstream, as the SDK's close does. */
  abortAll(): void {
    const all = [...this.#calls.values()];
    this.#calls.clear();
    for (const abort of all) abort.abort();
  }
}
