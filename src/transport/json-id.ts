/**
 * Finds the top-level `"id"` of a JSON-RPC message while it streams, without holding the message.
 * A response's own id may come first (as most SDKs other than ours write it) or last, and a nested
 * object anywhere in the result may hold an `"id"` key of its own; only the nesting depth tells them
 * apart, so this tracks objects, arrays and string literals byte by byte. For any chunking of a valid
 * JSON object, `id` equals `JSON.parse(text).id` when that is a string or a number (the last of
 * duplicate keys wins, as with JSON.parse); for anything else it is undefined.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** An id longer than this is not worth attributing an error to (JSON-RPC ids are short). */
const MAX_ID_BYTES = 1024;
const MAX_KEY_BYTES = 64;

type Capture = "none" | "key" | "id-string" | "id-literal";

export class TopLevelIdScanner {
  #depth = 0;
  #inString = false;
  #escape = false;
  /** At depth 1: whether the next string is a key (after `{` or `,`) rather than a value (after `:`). */
  #expectKey = false;
  /** At depth 1: the last key read was "id" and its value has not started yet. */
  #idValueNext = false;
  #capture: Capture = "none";
  #captured: number[] = [];
  #overflow = false;
  #id: string | number | undefined;
  #done = false;

  /** The top-level id found so far (final once the top-level object has closed). */
  get id(): string | number | undefined {
    return this.#id;
  }

  write(chunk: Uint8Array): void {
    if (this.#done) return;
    const length = chunk.length;
    for (let i = 0; i < length; i++) {
      const byte = chunk[i] as number;
      if (this.#inString) {
        if (this.#capture !== "none") this.#keep(byte);
        if (this.#escape) this.#escape = false;
        else if (byte === BACKSLASH) this.#escape = true;
        else if (byte === QUOTE) {
          this.#inString = false;
          this.#endString();
        }
        continue;
      }
      if (this.#capture === "id-literal") {
        if (byte === COMMA || byte === CLOSE_OBJECT || isSpace(byte)) this.#endLiteral();
        else {
          this.#keep(byte);
          continue;
        }
      }
      switch (byte) {
        case QUOTE:
          this.#inString = true;
          if (this.#depth === 1 && this.#expectKey) this.#startCapture("key", byte);
          else if (this.#depth === 1 && this.#idValueNext) this.#startCapture("id-string", byte);
          this.#idValueNext = false;
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.#depth++;
          // An object or array is no valid id.
          if (this.#idValueNext) this.#id = undefined;
          this.#idValueNext = false;
          if (this.#depth === 1) this.#expectKey = byte === OPEN_OBJECT;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.#depth--;
          if (this.#depth <= 0) this.#done = true;
          if (this.#done) return;
          break;
        case COMMA:
          if (this.#depth === 1) this.#expectKey = true;
          break;
        case COLON:
          if (this.#depth === 1) this.#expectKey = false;
          break;
        default:
          if (this.#idValueNext && !isSpace(byte)) {
            this.#idValueNext = false;
            this.#startCapture("id-literal", byte);
          }
      }
    }
  }

  #startCapture(kind: Capture, first: number): void {
    this.#capture = kind;
    this.#captured = [first];
    this.#overflow = false;
  }

  #keep(byte: number): void {
    const limit = this.#capture === "key" ? MAX_KEY_BYTES : MAX_ID_BYTES;
    if (this.#captured.length < limit) this.#captured.push(byte);
    else this.#overflow = true;
  }

  #endString(): void {
    const kind = this.#capture;
    this.#capture = "none";
    if (kind === "key") {
      this.#idValueNext = !this.#overflow && decode(this.#captured) === "id";
      return;
    }
    if (kind === "id-string") {
      const value = this.#overflow ? undefined : decode(this.#captured);
      this.#id = typeof value === "string" ? value : undefined;
    }
  }

  #endLiteral(): void {
    this.#capture = "none";
    const value = this.#overflow ? undefined : decode(this.#captured);
    this.#id = typeof value === "number" ? value : undefined;
  }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function decode(bytes: number[]): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}
