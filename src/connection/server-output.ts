import type { NoiseKind } from "../transport/process-transport.js";
import type { Logger } from "../util/logger.js";
import { RingBuffer } from "../util/ring.js";

const STDERR_LINES = 50;
const STDERR_LINE_CHARS = 1000;
/**
 * Characters of an unterminated stderr piece (a line longer than the transport buffers) held back
 * until the rest of the line arrives, so that a secret cut in two by the transport (up to this long)
 * is still masked whole.
 */
const STDERR_HOLDBACK_CHARS = 4096;

const NOISE_WORDING: Readonly<Record<NoiseKind, string>> = {
  "non-json": "non-JSON output",
  "not-json-rpc": "JSON that is not a JSON-RPC message",
  oversized: "a message larger than maxMessageBytes",
};

/**
 * What a server wrote besides protocol messages: its last stderr lines (bounded, kept across
 * restarts for status and error messages) and stdout noise, warned about once per kind. Both are
 * masked as they arrive, so nothing unmasked is ever kept.
 */
export class ServerOutput {
  readonly #stderr = new RingBuffer<string>(STDERR_LINES);
  readonly #noiseReported = new Set<NoiseKind>();
  readonly #server: string;
  readonly #logger: Logger;
  readonly #redact: (text: string) => string;
  /** The masked end of an unterminated stderr piece, waiting for the rest of its line. */
  #pending = "";

  constructor(server: string, logger: Logger, redact: (text: string) => string) {
    this.#server = server;
    this.#logger = logger;
    this.#redact = redact;
  }

  /** `complete` is false for a piece of a line the transport cut because it had no end yet. */
  readonly onStderrLine = (line: string, complete = true): void => {
    const text = this.#redact(this.#pending + line);
    if (complete) {
      this.#pending = "";
      this.#stderr.push(text.slice(0, STDERR_LINE_CHARS));
      return;
    }
    const cut = Math.max(0, text.length - STDERR_HOLDBACK_CHARS);
    this.#pending = text.slice(cut);
    if (cut > 0) this.#stderr.push(text.slice(0, Math.min(cut, STDERR_LINE_CHARS)));
  };

  readonly onNoise = (kind: NoiseKind, sample: string): void => {
    if (this.#noiseReported.has(kind)) return;
    this.#noiseReported.add(kind);
    this.#logger.warn(
      `Server "${this.#server}" wrote ${NOISE_WORDING[kind]} on stdout; such lines are skipped (reported once per kind)`,
      { server: this.#server, sample: this.#redact(sample) },
    );
  };

  /** The last stderr lines, oldest first, masked. */
  stderr(): string[] {
    return this.#stderr.toArray();
  }
}
