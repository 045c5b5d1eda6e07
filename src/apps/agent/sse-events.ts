import { createParser, type EventSourceParser } from "eventsource-parser";
import { streamEventTooLarge } from "../../errors/model-errors.js";

/**
 * Server-Sent Events of model streams (OpenAI-compatible Chat Completions, Anthropic Messages), read
 * with eventsource-parser (the parser the MCP SDK uses too), per the WHATWG event-stream rules. The
 * stream is the model endpoint's, so it is capped: an event (or an unfinished line) over
 * `maxEventBytes` characters fails the stream instead of growing memory without end.
 */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;

export class SseParser {
  readonly #parser: EventSourceParser;
  #events: SseEvent[] = [];
  #failed: Error | undefined;

  constructor(maxEventBytes = MAX_SSE_EVENT_BYTES) {
    this.#parser = createParser({
      maxBufferSize: maxEventBytes,
      onEvent: ({ event, data }) => {
        this.#events.push(event === undefined ? { data } : { event, data });
      },
      // Only the cap fails the stream; an unknown field or a bad `retry` is ignored, as the spec says.
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded")
          this.#failed = streamEventTooLarge({ maxBytes: maxEventBytes });
      },
    });
  }

  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[] {
    if (this.#failed) throw this.#failed;
    this.#parser.feed(text);
    if (this.#failed) throw this.#failed;
    const events = this.#events;
    this.#events = [];
    return events;
  }

  /** The end of the stream: an event without its closing blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    this.#parser.reset();
    return [];
  }
}

/** The events of a response body, as they arrive. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  maxEventBytes?: number,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser(maxEventBytes);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    // Stops the download when the consumer stops early (cancellation, a malformed event).
    await reader.cancel().catch(() => {});
  }
}
