/**
 * Text of a value that came from a server, for a message, a description or a log line. Never
 * throws: `String(value)` does for parsed JSON such as `{"toString": null}` (no callable
 * `toString`), and `JSON.stringify` does for a BigInt or a cycle. Strings are returned as they
 * are, other primitives as `String` gives them, objects as JSON (indented when asked).
 */
export function textOf(value: unknown, indent?: number): string {
  if (typeof value === "string") return value;
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return String(value);
  try {
    const json = JSON.stringify(value, null, indent);
    if (json !== undefined) return json;
  } catch {
    // A cycle or a BigInt inside: fall through to the tag.
  }
  return Object.prototype.toString.call(value);
}

/** The message of anything thrown: an `Error`'s message, any other value as `textOf` gives it. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : textOf(error);
}
