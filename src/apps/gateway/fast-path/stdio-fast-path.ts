import type { JSONRPCMessage, RequestId, Server } from "@modelcontextprotocol/server";
import { answerFastCall, fastToolCallOf, servesFastCalls } from "./fast-call.js";

/**
 * `serve --stdio`'s fast path: a `tools/call` line is parsed once (by the wire), served through the
 * gateway's own call path on the connection's server instance, and its response serialized once, in
 * place of the SDK server's dispatch (zod on the request and again on the result). As the SDK's
 * Protocol does, a `notifications/cancelled` aborts the call and leaves it unanswered, and the
 * channel's end aborts every call in flight. See fast-call.ts for what is left to the SDK.
 */
export class StdioFastPath {
  readonly #inFlight = new Map<RequestId, AbortController>();
  readonly #servers: () => Iterable<Server>;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;

  /** `servers`: the connection's instances; `send`: the wire's (bounded by its unread limit). */
  constructor(servers: () => Iterable<Server>, send: (message: JSONRPCMessage) => Promise<void>) {
    this.#servers = servers;
    this.#send = send;
  }

  /** Pass as the wire's `intercept`: true when the message was a call this path answers. */
  readonly take = (message: unknown): boolean => {
    const call = fastToolCallOf(message);
    if (!call) {
      this.#cancelled(message);
      return false;
    }
    const server = this.#serving();
    if (!server) return false;
    const abort = new AbortController();
    this.#inFlight.set(call.id, abort);
    void answerFastCall(server, call, abort.signal)
      .then((response) => (response ? this.#send(response as JSONRPCMessage) : undefined))
      // The channel closed under the answer: nobody is left to tell.
      .catch(() => undefined)
      .finally(() => {
        if (this.#inFlight.get(call.id) === abort) this.#inFlight.delete(call.id);
      });
    return true;
  };

  /** The channel ended: every call in flight is cancelled upstream, as the SDK server's close does. */
  close(): void {
    for (const abort of this.#inFlight.values()) abort.abort();
    this.#inFlight.clear();
  }

  #serving(): Server | undefined {
    for (const server of this.#servers()) if (servesFastCalls(server)) return server;
    return undefined;
  }

  /** A `notifications/cancelled` for a fast call aborts it (the SDK still sees the notification). */
  #cancelled(message: unknown): void {
    const note = message as { method?: unknown; params?: { requestId?: unknown } } | null;
    if (note?.method !== "notifications/cancelled" || typeof note.params !== "object") return;
    const target = note.params?.requestId;
    if (typeof target !== "string" && typeof target !== "number") return;
    this.#inFlight.get(target)?.abort();
  }
}
