import type { NoiseKind } from "../transport/stdio.js";
import type { Logger } from "../util/logger.js";
import { RingBuffer } from "../util/ring.js";

const STDERR_LINES = 50;
const STDERR_LINE_CHARS = 1000;

const NOISE_WORDING: Readonly<Record<NoiseKind, string>> = {
  "non-json": "non-JSON output",
  "not-json-rpc": "JSON that is not a JSON-RPC message",
  oversized: "a message larger than maxMessageBytes",
};

/**
 * What a server wrote besides protocol messages: its last stderr lines (bounded, kept across
 * restarts for status and error messages) and stdout noise, warned about once per kind.
 */
export class ServerOutput {
  readonly #stderr = new RingBuffer<string>(STDERR_LINES);
  readonly #noiseReported = new Set<NoiseKind>();
  readonly #server: string;
  readonly #logger: Logger;
  readonly #redact: (text: string) => string;

  constructor(server: string, logger: Logger, redact: (text: string) => string) {
    this.#server = server;
    this.#logger = logger;
    this.#redact = redact;
  }

  readonly onStderrLine = (line: string): void => {
    this.#stderr.push(line.slice(0, STDERR_LINE_CHARS));
  };

  readonly onNoise = (kind: NoiseKind, sample: string): void => {
    if (this.#noiseReported.has(kind)) return;
    this.#noiseReported.add(kind);
    this.#logger.warn(
      `Server "${this.#server}" wrote ${NOISE_WORDING[kind]} on stdout; such lines are skipped (reported once per kind)`,
      { server: this.#server, sample: this.#redact(sample) },
    );
  };

  /** The last stderr lines, oldest first, not yet redacted. */
  stderr(): string[] {
    return this.#stderr.toArray();
  }
}
