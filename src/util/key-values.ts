import { ErrorCode, McpBridgeError } from "../errors.js";

function usageError(message: string): McpBridgeError {
  return new McpBridgeError(ErrorCode.Usage, message);
}

/**
 * `key=value` arguments: the value is JSON when it parses as JSON (`a=5` is 5, `flag=true` a boolean,
 * `s="5"` the string "5"), otherwise the text itself.
 */
export function parseKeyValues(pairs: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const index = pair.indexOf("=");
    if (index <= 0) throw usageError(`Expected key=value, got "${pair}"`);
    const key = pair.slice(0, index);
    const raw = pair.slice(index + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    result[key] = value;
  }
  return result;
}

type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";

/** The JSON types a schema property allows (type, type arrays, anyOf/oneOf of typed branches, enums). */
function allowedTypes(schema: unknown): Set<JsonType> | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  const s = schema as { type?: unknown; anyOf?: unknown; oneOf?: unknown; enum?: unknown; const?: unknown };
  const types = new Set<JsonType>();
  if (typeof s.type === "string") types.add(s.type as JsonType);
  else if (Array.isArray(s.type)) for (const t of s.type) types.add(t as JsonType);
  for (const branch of [s.anyOf, s.oneOf]) {
    if (!Array.isArray(branch)) continue;
    for (const item of branch) for (const t of allowedTypes(item) ?? []) types.add(t);
  }
  const values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const] : [];
  for (const value of values) types.add(value === null ? "null" : (typeof value as JsonType));
  return types.size ? types : undefined;
}

/**
 * `key=value` arguments converted by the tool's inputSchema: a parameter that takes a string gets the
 * text as written (`id=5` is "5" for a string id), a number or boolean parameter gets the parsed value,
 * and where the schema does not say (or allows several types) the JSON reading of `parseKeyValues`
 * applies, falling back to the text when that reading is a type the parameter does not take.
 */
export function parseKeyValuesFor(pairs: readonly string[], inputSchema: unknown): Record<string, unknown> {
  const parsed = parseKeyValues(pairs);
  const properties =
    inputSchema && typeof inputSchema === "object"
      ? ((inputSchema as { properties?: Record<string, unknown> }).properties ?? {})
      : {};
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const index = pair.indexOf("=");
    const key = pair.slice(0, index);
    const raw = pair.slice(index + 1);
    const value = parsed[key];
    const types = Object.hasOwn(properties, key) ? allowedTypes(properties[key]) : undefined;
    if (!types) {
      result[key] = value;
      continue;
    }
    const kind: JsonType =
      value === null
        ? "null"
        : Array.isArray(value)
          ? "array"
          : typeof value === "number"
            ? Number.isInteger(value)
              ? "integer"
              : "number"
            : (typeof value as JsonType);
    const fits = types.has(kind) || (kind === "integer" && types.has("number"));
    // A quoted JSON string (`s="5"`) stays the string it spells.
    result[key] = fits ? value : types.has("string") ? raw : value;
  }
  return result;
}
