import type { JSONRPCMessage, ServerNotification } from "@modelcontextprotocol/server";
import type { GatewayInstance } from "../forwarding/served-tool-call.js";
import { answerFastCall, fastToolCallOf, servesFastCalls } from "./fast-call.js";

/**
 * `serve --stdio`'s fast path: a `tools/call` line is parsed once (by the wire), served through the
 * gateway's own call path on the connection's server instance, and its response serialized once, in
 * place of the SDK server's dispatch (zod on the request and again on the result). As the SDK's
 * Protocol does, a `notifications/cancelled` aborts the call and leaves it unanswered, and the
 * channel's end aborts every call in flight. See fast-call.ts for what is left to the SDK.
 */
export class StdioFastPath {
  readonly #servers: () => Iterable<GatewayInstance>;
  readonly #send: (message: JSONRPCMessage) => Promise<void>;

  /** `servers`: the connection's instances; `send`: the wire's (bounded by its unread limit). */
  constructor(servers: () => Iterable<GatewayInstance>, send: (message: JSONRPCMessage) => Promise<void>) {
    this.#servers = servers;
    this.#send = send;
  }

  /** Pass as the wire's `intercept`: true when the message was a call this path answers. */
  readonly take = (message: unknown): boolean => {
    const call = fastToolCallOf(message);
    if (!call) {
      for (const instance of this.#servers()) instance.running.cancel(message);
      return false;
    }
    const server = this.#serving();
    if (!server) return false;
    const notify = (notification: ServerNotification) =>
      this.#send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage);
    void answerFastCall(server, call, notify)
      .then((response) => (response ? this.#send(response as JSONRPCMessage) : undefined))
      // The channel closed under the answer: nobody is left to tell.
      .catch(() => undefined);
    return true;
  };

  /** The channel ended: every call in flight is cancelled upstream, as the SDK server's close does. */
  close(): void {
    for (const instance of this.#servers()) instance.running.abortAll();
  }

  #serving(): GatewayInstance | undefined {
    for (const instance of this.#servers()) if (servesFastCalls(instance)) return instance;
    return undefined;
  }
}
