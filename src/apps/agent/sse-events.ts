import { streamEventTooLarge } from "../../errors/model-errors.js";

/**
 * A Server-Sent Events parser for model streams (OpenAI-compatible Chat Completions, Anthropic
 * Messages), per the WHATWG event-stream rules: lines end in LF, CR or CRLF (a CRLF split across
 * chunks included), `data:` lines of one event are joined with LF, a blank line ends the event,
 * `:` lines are comments, one leading space after the colon is dropped. The stream is the model
 * endpoint's, so it is capped: one event over `maxEventBytes` fails the stream instead of growing
 * memory without end.
 */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;

export class SseParser {
  #buffer = "";
  #data: string[] = [];
  #dataBytes = 0;
  #event: string | undefined;
  #lastWasCR = false;
  readonly #maxEventBytes: number;

  constructor(maxEventBytes = MAX_SSE_EVENT_BYTES) {
    this.#maxEventBytes = maxEventBytes;
  }

  /** Feeds decoded text; returns the events completed by it. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    const input = this.#buffer + text;
    this.#buffer = "";
    for (let i = 0; i < input.length; i++) {
      const ch = input.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      // The LF of a CRLF whose CR ended the previous line (possibly in the previous chunk).
      if (ch === 10 && this.#lastWasCR && i === start) {
        this.#lastWasCR = false;
        start = i + 1;
        continue;
      }
      this.#line(input.slice(start, i), events);
      this.#lastWasCR = ch === 13;
      start = i + 1;
    }
    if (start < input.length) this.#lastWasCR = false;
    this.#buffer = input.slice(start);
    if (this.#buffer.length + this.#dataBytes > this.#maxEventBytes) {
      throw streamEventTooLarge({ maxBytes: this.#maxEventBytes });
    }
    return events;
  }

  /** The end of the stream: an event without its closing blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#buffer.length > 0) this.#line(this.#buffer, events);
    this.#buffer = "";
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      if (this.#data.length > 0) {
        events.push({ event: this.#event, data: this.#data.join("\n") });
      }
      this.#data = [];
      this.#dataBytes = 0;
      this.#event = undefined;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#data.push(value);
      this.#dataBytes += value.length + 1;
      if (this.#dataBytes > this.#maxEventBytes) throw streamEventTooLarge({ maxBytes: this.#maxEventBytes });
    } else if (field === "event") {
      this.#event = value;
    }
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
