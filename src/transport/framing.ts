import { TopLevelIdScanner } from "./json-id.js";

/**
 * Newline-delimited framing for stdio, owned here rather than taken from the SDK's ReadBuffer because
 * that one re-concatenates its whole buffer on every chunk (quadratic on large messages) and closes the
 * connection once a message passes 10 MiB. Messages themselves are still parsed by the SDK.
 *
 * Memory stays bounded whatever a line holds, and large lines degrade gracefully instead of killing
 * the connection:
 * - past `capStringsAfterBytes`, the rest of the line streams through a StringCapper that keeps at most
 *   `stringCapBytes` of every JSON string literal, so a 50 MB tool result costs memory for what is kept;
 * - what is kept of one line never exceeds `maxKeptBytes`: a line with more content outside string
 *   literals (a huge array of numbers, junk without quotes) is dropped as it streams instead of
 *   growing towards V8's string limit, where converting it would throw ERR_STRING_TOO_LONG;
 * - past `maxLineBytes` (a hard limit on raw bytes, off by default), the line is dropped likewise.
 * A dropped line is reported through `onOversized` with the top-level id of the message it held (found
 * by tracking the JSON nesting while it streams), so the caller can fail only the request it answered.
 */

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export interface OversizedLine {
  readonly bytes: number;
  /** The top-level JSON-RPC id of the dropped message, when it had one. */
  readonly id: string | number | undefined;
  /** Which bound the line passed: the raw `maxLineBytes`, or what may be kept of a line. */
  readonly limit: "line" | "kept";
}

export interface LineFramerOptions {
  readonly onLine: (line: string) => void;
  readonly onOversized?: (info: OversizedLine) => void;
  readonly maxLineBytes?: number;
  readonly capStringsAfterBytes?: number;
  readonly stringCapBytes?: number;
  readonly maxKeptBytes?: number;
}

const DEFAULT_CAP_AFTER = 8 * 1024 * 1024;
const DEFAULT_STRING_CAP = 1024 * 1024;
/** Far below V8's ~512 MiB string limit, and parsing it stays cheap. */
export const DEFAULT_MAX_KEPT_BYTES = 32 * 1024 * 1024;

export class LineFramer {
  readonly #options: LineFramerOptions;
  readonly #capAfter: number;
  readonly #maxKept: number;
  /** The longest line taken whole as it stands: past it, strings are capped or the line dropped. */
  readonly #wholeLineLimit: number;
  #chunks: Buffer[] = [];
  #length = 0;
  #mode: "buffer" | "cap" | "discard" = "buffer";
  #capper: StringCapper | undefined;
  #scanner: TopLevelIdScanner | undefined;
  #limit: OversizedLine["limit"] = "kept";

  constructor(options: LineFramerOptions) {
    this.#options = options;
    this.#maxKept = options.maxKeptBytes ?? DEFAULT_MAX_KEPT_BYTES;
    this.#capAfter = Math.min(options.capStringsAfterBytes ?? DEFAULT_CAP_AFTER, this.#maxKept);
    this.#wholeLineLimit = Math.min(this.#capAfter, options.maxLineBytes ?? Number.POSITIVE_INFINITY);
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      // A whole line within this chunk and within every limit (the usual message) is decoded in place,
      // without a view of it or a list of parts.
      if (newline !== -1 && this.#length === 0 && end - start <= this.#wholeLineLimit) {
        this.#emitLine(chunk.toString("utf8", start, end));
        start = newline + 1;
        continue;
      }
      if (end > start) this.#append(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#finishLine();
      start = newline + 1;
    }
  }

  /** Bytes currently held for an unfinished line. */
  get bufferedBytes(): number {
    if (this.#mode === "buffer") return this.#length;
    return this.#capper?.outputBytes ?? 0;
  }

  /** Whether an unfinished line is being dropped for its size (it may be a stream without newlines). */
  get dropping(): boolean {
    return this.#mode === "discard";
  }

  /** Bytes of the unfinished line so far. */
  get lineBytes(): number {
    return this.#length;
  }

  clear(): void {
    this.#reset();
  }

  #append(part: Buffer): void {
    this.#length += part.length;
    const hardLimit = this.#options.maxLineBytes;
    const overHard = hardLimit !== undefined && this.#length > hardLimit;
    if (this.#mode === "buffer") {
      this.#chunks.push(part);
      if (!overHard && this.#length <= this.#capAfter) return;
      this.#scanner = new TopLevelIdScanner();
      for (const chunk of this.#chunks) this.#scanner.write(chunk);
      if (overHard) {
        this.#discard("line");
        return;
      }
      this.#mode = "cap";
      this.#capper = new StringCapper(this.#options.stringCapBytes ?? DEFAULT_STRING_CAP);
      for (const chunk of this.#chunks) this.#capper.write(chunk);
      this.#chunks = [];
    } else {
      this.#scanner?.write(part);
      if (this.#mode === "discard") return;
      if (overHard) {
        this.#discard("line");
        return;
      }
      this.#capper?.write(part);
    }
    if ((this.#capper?.outputBytes ?? 0) > this.#maxKept) this.#discard("kept");
  }

  #discard(limit: OversizedLine["limit"]): void {
    this.#mode = "discard";
    this.#limit = limit;
    this.#chunks = [];
    this.#capper = undefined;
  }

  #finishLine(): void {
    const mode = this.#mode;
    if (mode === "discard") {
      // Which limit a dropped line passed is decided by the whole line, not by the chunk where a limit
      // was first seen: past the raw limit it is that one, however the bytes arrived.
      const max = this.#options.maxLineBytes;
      const limit = max !== undefined && this.#length > max ? "line" : this.#limit;
      const info = { bytes: this.#length, id: this.#scanner?.id, limit };
      this.#reset();
      this.#options.onOversized?.(info);
      return;
    }
    const raw =
      mode === "cap" && this.#capper
        ? this.#capper.end()
        : this.#chunks.length === 1
          ? (this.#chunks[0] as Buffer)
          : Buffer.concat(this.#chunks, this.#length);
    this.#reset();
    this.#emitLine(raw.toString("utf8"));
  }

  #emitLine(text: string): void {
    let line = text;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    // A byte order mark (some Windows tools write one before their first line) is no JSON.
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    this.#options.onLine(line);
  }

  #reset(): void {
    this.#chunks = [];
    this.#length = 0;
    this.#mode = "buffer";
    this.#capper = undefined;
    this.#scanner = undefined;
  }
}

/**
 * Streams JSON text and cuts every string literal after `capBytes` bytes, replacing the rest with a
 * marker, without ever holding the dropped part. Cuts only at a UTF-8 character boundary and never
 * inside an escape sequence, so the output stays valid JSON whenever the input was.
 */
export class StringCapper {
  readonly #capBytes: number;
  readonly #output: Buffer[] = [];
  #outputBytes = 0;
  #state: "outside" | "keep" | "drop" = "outside";
  #kept = 0;
  #dropped = 0;
  #escapePending = false;
  #unsafeAhead = 0;
  #dropBackslashRun = 0;

  constructor(capBytes: number) {
    this.#capBytes = Math.max(16, capBytes);
  }

  get outputBytes(): number {
    return this.#outputBytes;
  }

  write(chunk: Buffer): void {
    let i = 0;
    const length = chunk.length;
    while (i < length) {
      if (this.#state === "outside") {
        const quote = chunk.indexOf(QUOTE, i);
        const end = quote === -1 ? length : quote + 1;
        this.#emit(chunk.subarray(i, end));
        i = end;
        if (quote !== -1) {
          this.#state = "keep";
          this.#kept = 0;
          this.#escapePending = false;
          this.#unsafeAhead = 0;
        }
        continue;
      }
      if (this.#state === "keep") {
        const start = i;
        let cutAt = -1;
        let closed = false;
        for (; i < length; i++) {
          const byte = chunk[i] as number;
          if (
            this.#kept >= this.#capBytes &&
            !this.#escapePending &&
            this.#unsafeAhead === 0 &&
            byte !== QUOTE &&
            (byte & 0xc0) !== 0x80
          ) {
            cutAt = i;
            break;
          }
          this.#kept++;
          if (this.#escapePending) {
            this.#escapePending = false;
            if (byte === 0x75 /* u */) this.#unsafeAhead = 4;
          } else if (this.#unsafeAhead > 0) {
            this.#unsafeAhead--;
          } else if (byte === BACKSLASH) {
            this.#escapePending = true;
          } else if (byte === QUOTE) {
            closed = true;
            i++;
            break;
          }
        }
        this.#emit(chunk.subarray(start, i));
        if (closed) this.#state = "outside";
        else if (cutAt !== -1) {
          this.#state = "drop";
          this.#dropped = 0;
          this.#dropBackslashRun = 0;
        }
        continue;
      }
      // drop: find the closing quote, skipping escaped ones, without keeping anything.
      let searchFrom = i;
      let closedAt = -1;
      while (searchFrom < length) {
        const quote = chunk.indexOf(QUOTE, searchFrom);
        if (quote === -1) break;
        let run = 0;
        let k = quote - 1;
        while (k >= i && chunk[k] === BACKSLASH) {
          run++;
          k--;
        }
        if (k < i) run += this.#dropBackslashRun;
        if (run % 2 === 0) {
          closedAt = quote;
          break;
        }
        searchFrom = quote + 1;
      }
      if (closedAt === -1) {
        this.#dropped += length - i;
        let run = 0;
        let k = length - 1;
        while (k >= i && chunk[k] === BACKSLASH) {
          run++;
          k--;
        }
        this.#dropBackslashRun = k < i ? this.#dropBackslashRun + run : run;
        return;
      }
      this.#dropped += closedAt - i;
      this.#emit(
        Buffer.from(`\\n[mcp-bridge: ${this.#dropped} more bytes cut from this oversized message]"`),
      );
      this.#state = "outside";
      i = closedAt + 1;
    }
  }

  end(): Buffer {
    return Buffer.concat(this.#output, this.#outputBytes);
  }

  #emit(part: Buffer): void {
    if (part.length === 0) return;
    // Copy: a view would pin the whole 64 KiB source chunk in memory.
    const copy = Buffer.from(part);
    this.#output.push(copy);
    this.#outputBytes += copy.length;
  }
}
