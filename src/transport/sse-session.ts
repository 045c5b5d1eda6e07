import type { SSEClientTransport } from "@modelcontextprotocol/client";
import { SseError } from "@modelcontextprotocol/client";
import { ForwardingTransport } from "../util/forwarding-transport.js";

/**
 * The legacy HTTP+SSE transport, closed once its event stream fails after the session started. In that
 * protocol the session lives in the GET stream: when the stream drops (the server died or restarted),
 * the answers to requests in flight can never arrive, and a stream the SDK's EventSource reconnects is a
 * new, uninitialized session. The SDK only reports the error and keeps retrying, so the connection never
 * learnt the session was gone and a call in flight waited out its whole timeout. Closing here lets the
 * connection fail those calls at once (SERVER_CRASHED) and reconnect under its own policy.
 */
export class SseSessionTransport extends ForwardingTransport<SSEClientTransport> {
  #started = false;

  protected override failed(error: Error): void {
    super.failed(error);
    // Only the event stream's own failures end the session; a failed POST is that request's error.
    if (this.#started && error instanceof SseError) void this.inner.close();
  }

  override async start(): Promise<void> {
    await this.inner.start();
    this.#started = true;
  }

  finishAuth(params: URLSearchParams): Promise<void> {
    return this.inner.finishAuth(params);
  }
}
