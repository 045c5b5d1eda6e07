import { parseJSONRPCMessage } from "@modelcontextprotocol/client";
import { createParser } from "eventsource-parser";

/**
 * SDK internal: how the Streamable HTTP client transport reads a POST's response (an SSE body through
 * a TextDecoderStream and an EventSourceParserStream, a JSON body through `Response.json()`), which is
 * not part of its API. Checked against @modelcontextprotocol/client 2.4.0. Used through
 * keepalive-fetch.ts, under its shim (see shims.ts).
 *
 * Detection: a settled response still has a body stream for a reader that asks for one (built from the
 * text on first use), so a transport that stopped calling `json()` gets the same bytes, only slower.
 *
 * A whole response body that had fully arrived by the time the Streamable HTTP transport would start
 * reading it, handed over as a value instead of a stream.
 *
 * The SDK's transport reads an SSE response through a TextDecoderStream and an EventSourceParserStream
 * and a JSON response through `Response.json()`: several web streams per call, most of a warm HTTP
 * call's client CPU once the socket work is done. Nearly every tools/call answer is one short SSE event
 * or one JSON document that arrives complete in one read. Such a body is decoded here with the SDK's own
 * pieces (TextDecoder, eventsource-parser) and given to the transport's JSON path, which delivers the
 * same messages in the same order as its SSE path would have. It is only done where the two paths are
 * equivalent; anything else is streamed as before:
 *
 * - SSE events with an `id` (resumption tokens, priming events) or a `retry` field change the
 *   transport's reconnection state, which only its SSE path updates.
 * - A message the SDK's schema rejects is reported and skipped by the SSE path but fails the whole
 *   JSON path, so every message must be one the schema accepts.
 * - A `subscriptions/listen` stream's end is itself a signal to the SDK (the subscription closed), which
 *   only the SSE path gives.
 *
 * Equivalence with the SDK's SSE path is tested as a property over arbitrary bodies and chunkings.
 */
export type SettledBody = { readonly json: unknown; readonly text: string };

/**
 * What a response body is by its media type: SSE, JSON, or neither (`undefined`). Only the first two
 * can be settled; bounded-fetch.ts caps them differently.
 */
export function bodyKind(contentType: string | null): "sse" | "json" | undefined {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  return essence === "text/event-stream" ? "sse" : essence === "application/json" ? "json" : undefined;
}

/** Whether the request a response answers may have its body settled (see above). */
export function settleableRequest(body: string | undefined): boolean {
  return body !== undefined && !body.includes('"subscriptions/listen"');
}

const decoder = new TextDecoder();

const BARE_CR = /\r(?!\n)/;

/**
 * The value the transport's JSON path should get for a complete body, or undefined when the body must
 * be streamed. For JSON it is parsed lazily, as `Response.json()` would (a parse error then surfaces
 * from `json()`, where the SDK expects it).
 */
export function settleBody(type: "sse" | "json", bytes: Uint8Array): SettledBody | undefined {
  const text = decoder.decode(bytes);
  if (type === "json") return { json: undefined, text };
  // With bare CR line endings, what the SDK's stream dispatches depends on where the network cut the
  // body (a CR ending one chunk is held back as maybe half of a CRLF): no single answer is equivalent.
  if (BARE_CR.test(text)) return undefined;
  const messages: unknown[] = [];
  let equivalent = true;
  const parser = createParser({
    onEvent(event) {
      if (event.id !== undefined) equivalent = false;
      // The SDK's SSE path skips events without data and events of another type than "message".
      if (!equivalent || !event.data || (event.event && event.event !== "message")) return;
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        equivalent = false;
        return;
      }
      if (acceptedAsMessage(value)) messages.push(value);
      else equivalent = false;
    },
    onRetry() {
      equivalent = false;
    },
  });
  // As in the SDK's stream, an event not ended by a blank line when the body ends is never dispatched.
  parser.feed(text);
  return equivalent ? { json: messages, text } : undefined;
}

/**
 * A Response whose body already arrived: `json()` and `text()` answer from it without a stream (the
 * body slot itself stays empty, so nothing builds one). Only 200 responses of the transport's own
 * requests are made into one.
 */
export class SettledResponse extends Response {
  readonly #settled: SettledBody;

  constructor(settled: SettledBody, init: ResponseInit) {
    super(null, init);
    this.#settled = settled;
  }

  override json(): Promise<unknown> {
    const { json, text } = this.#settled;
    try {
      return Promise.resolve(json === undefined ? JSON.parse(text) : json);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  override text(): Promise<string> {
    return Promise.resolve(this.#settled.text);
  }

  /** The body as a stream, for a reader that does not call `json()` or `text()` (see above). */
  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Response(this.#settled.text).body as ReadableStream<Uint8Array<ArrayBuffer>>;
    return this.#stream;
  }

  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
}

/** Whether the SDK's JSON-RPC message schema accepts a parsed value. */
function acceptedAsMessage(value: unknown): boolean {
  try {
    parseJSONRPCMessage(value);
    return true;
  } catch {
    return false;
  }
}
