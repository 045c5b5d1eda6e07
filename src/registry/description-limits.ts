import type { JsonSchema } from "./tool-definition.js";

/**
 * Bounds on what a server's tool definition may put in front of a model. A tool description is
 * prose for the model, sent with every request: a server that writes a megabyte there floods every
 * host's context. Descriptions are cut (with a marker saying so) when a tool is registered, so
 * every export, the tool search and the CLI see the same bounded text.
 */
export const MAX_DESCRIPTION_CHARS = 4000;
/** A `description` inside an input schema (one parameter's) is cut beyond this. */
export const MAX_SCHEMA_DESCRIPTION_CHARS = 1000;
const MAX_DEPTH = 64;

export function cutDescription(text: string, max = MAX_DESCRIPTION_CHARS): string {
  if (text.length <= max) return text;
  const marker = ` … [description cut: ${text.length - max} more characters]`;
  let keep = Math.max(0, max - marker.length);
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  return text.slice(0, keep) + marker;
}

/**
 * The schema itself when no `description` in it is too long (the common case: untouched, same
 * object); otherwise a copy with those descriptions cut.
 */
export function boundedSchema(schema: JsonSchema): JsonSchema {
  return needsCut(schema, 0) ? (cutInside(schema, 0) as JsonSchema) : schema;
}

function needsCut(node: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || typeof node !== "object" || node === null) return false;
  if (Array.isArray(node)) return node.some((item) => needsCut(item, depth + 1));
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" && typeof value === "string" && value.length > MAX_SCHEMA_DESCRIPTION_CHARS)
      return true;
    if (needsCut(value, depth + 1)) return true;
  }
  return false;
}

function cutInside(node: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof node !== "object" || node === null) return node;
  if (Array.isArray(node)) return node.map((item) => cutInside(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const cut =
      key === "description" && typeof value === "string"
        ? cutDescription(value, MAX_SCHEMA_DESCRIPTION_CHARS)
        : cutInside(value, depth + 1);
    Object.defineProperty(out, key, { value: cut, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
