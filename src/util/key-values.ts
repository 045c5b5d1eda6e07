import {
  argumentType,
  malformedKeyValue,
  missingParameters,
  unknownParameter,
} from "../errors/tool-errors.js";
import { suggest } from "./suggest.js";

/**
 * `key=value` arguments: the value is JSON when it parses as JSON (`a=5` is 5, `flag=true` a boolean,
 * `s="5"` the string "5"), otherwise the text itself.
 */
export function parseKeyValues(pairs: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const index = separatorAt(pair);
    if (index <= 0) throw malformedKeyValue({ pair });
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

/** A key in `key:value` (mcporter's form): a name, so `https://x` is not read as key `https`. */
const COLON_KEY = /^[A-Za-z_$][\w$.-]*$/;

/** Where a pair's key ends: its first `=`, or an earlier `:` after a plain name. */
function separatorAt(pair: string): number {
  const equals = pair.indexOf("=");
  const colon = pair.indexOf(":");
  if (colon > 0 && (equals < 0 || colon < equals) && COLON_KEY.test(pair.slice(0, colon))) return colon;
  return equals;
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
    const index = separatorAt(pair);
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
    // Reported here, before the call, in the words typed, rather than as the server's validator text.
    if (!fits && !types.has("string")) throw argumentType({ key, raw, expected: typeWords(types) });
    // A quoted JSON string (`s="5"`) stays the string it spells.
    result[key] = fits ? value : raw;
  }
  return result;
}

const TYPE_WORDS: Record<JsonType, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "a JSON object",
  array: "a JSON array",
  null: "null",
};

function typeWords(types: ReadonlySet<JsonType>): string {
  const words = [...types].filter((t) => !(t === "integer" && types.has("number"))).map((t) => TYPE_WORDS[t]);
  return words.length <= 1
    ? (words[0] ?? "of the parameter's type")
    : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}

/**
 * A call's arguments: the `--args` JSON object with the `key=value` pairs over it, converted by the
 * tool's schema and checked against it before the call: a name the schema does not have (when it
 * allows no others) and a value of the wrong type are usage errors that say which, with the nearest
 * parameter name; so is a required parameter left out.
 */
export function callArguments(
  json: Readonly<Record<string, unknown>>,
  pairs: readonly string[],
  inputSchema: unknown,
  tool: string,
): Record<string, unknown> {
  const args = { ...json, ...parseKeyValuesFor(pairs, inputSchema) };
  const schema = (inputSchema && typeof inputSchema === "object" ? inputSchema : {}) as {
    properties?: unknown;
    additionalProperties?: unknown;
    required?: unknown;
  };
  const properties = schema.properties && typeof schema.properties === "object" ? schema.properties : {};
  const names = Object.keys(properties);
  if (schema.properties && !schema.additionalProperties) {
    for (const key of Object.keys(args)) {
      if (Object.hasOwn(properties, key)) continue;
      const near = suggest(key, names);
      throw unknownParameter({ key, tool, parameters: names, near });
    }
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  const missing = required.filter(
    (name): name is string => typeof name === "string" && !Object.hasOwn(args, name),
  );
  if (missing.length > 0) throw missingParameters({ missing, tool, parameters: names });
  return args;
}
