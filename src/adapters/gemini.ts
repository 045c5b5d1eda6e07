import type { JsonSchema, ToolDefinition } from "../registry/tool-definition.js";
import { textOf } from "../util/text-of.js";

/**
 * Google Gemini `functionDeclarations` entries. Gemini's `parameters` take a subset of OpenAPI 3.0
 * schemas: no `$ref`/`$defs`, no `oneOf`/`allOf`/`const`/`additionalProperties`, no type arrays,
 * string-only `enum`, upper-case type names. MCP servers send full JSON Schema (zod and pydantic emit
 * `$ref`, unions and `["string","null"]` freely), so each schema is rewritten into that subset:
 * references inlined (a cycle is cut and the description says so), `oneOf` becomes `anyOf`, type
 * arrays become `nullable` or `anyOf`, `const` a one-value enum, and keywords Gemini rejects are
 * dropped (the server still validates its arguments). Names already satisfy Gemini's rule
 * (a letter or `_` first for the default `mcp_` format; at most 64 of `[A-Za-z0-9_.:-]`).
 */
export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parameters?: GeminiSchema;
}

export interface GeminiSchema {
  readonly type?: GeminiType;
  readonly description?: string;
  readonly nullable?: boolean;
  readonly enum?: readonly string[];
  readonly format?: string;
  readonly items?: GeminiSchema;
  readonly properties?: Readonly<Record<string, GeminiSchema>>;
  readonly required?: readonly string[];
  readonly anyOf?: readonly GeminiSchema[];
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

export type GeminiType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT";

/** Gemini's `format` values per type; any other format is dropped. */
const FORMATS: Partial<Record<GeminiType, ReadonlySet<string>>> = {
  NUMBER: new Set(["float", "double"]),
  INTEGER: new Set(["int32", "int64"]),
  STRING: new Set(["enum", "date-time"]),
};
const TYPES: Record<string, GeminiType> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
};
/** How deep references are followed; beyond this a schema is cut (and said so). */
const MAX_DEPTH = 12;

const cache = new WeakMap<ToolDefinition, GeminiFunctionDeclaration>();

export function toGeminiTools(entries: readonly ToolDefinition[]): GeminiFunctionDeclaration[] {
  return entries.map((entry) => {
    let declaration = cache.get(entry);
    if (!declaration) {
      const notes: string[] = [];
      const parameters = convertNode(entry.inputSchema, {
        root: entry.inputSchema,
        seen: [],
        notes,
        depth: 0,
      });
      const objectParameters: GeminiSchema = parameters.type === "OBJECT" ? parameters : { type: "OBJECT" };
      const hasParameters = Object.keys(objectParameters.properties ?? {}).length > 0;
      declaration = {
        name: entry.name,
        description:
          notes.length > 0 ? `${entry.description}\n(${[...new Set(notes)].join("; ")})` : entry.description,
        ...(hasParameters ? { parameters: objectParameters } : {}),
      };
      cache.set(entry, declaration);
    }
    return declaration;
  });
}

type Mutable = { -readonly [K in keyof GeminiSchema]: GeminiSchema[K] };

/** What the walk of one schema carries: the root for local `$ref`s, refs being expanded, notes. */
interface Walk {
  readonly root: JsonSchema;
  readonly seen: readonly string[];
  readonly notes: string[];
  readonly depth: number;
}

/** One JSON Schema node to Gemini's subset. */
function convertNode(node: unknown, walk: Walk): GeminiSchema {
  if (!isObject(node)) return {};
  if (walk.depth > MAX_DEPTH) {
    walk.notes.push("a deeply nested parameter schema was cut");
    return { type: "OBJECT", description: "(schema cut: nested too deeply)" };
  }
  const deeper: Walk = { ...walk, depth: walk.depth + 1 };
  if (typeof node.$ref === "string") return convertRef(node, node.$ref, deeper);
  if (Array.isArray(node.allOf)) return convertNode(mergeAllOf(node, node.allOf), deeper);

  const out: Mutable = {};
  const description = [node.title, node.description].filter((t) => typeof t === "string" && t).join(": ");
  if (description) out.description = description;
  const types = (Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]).filter(
    (t): t is string => typeof t === "string",
  );
  const nonNull = types.filter((t) => t !== "null");
  if (types.includes("null")) out.nullable = true;

  const union = [
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...(Array.isArray(node.oneOf) ? node.oneOf : []),
  ];
  if (union.length > 0) return convertUnion(union, out, deeper);
  if (nonNull.length > 1) {
    out.anyOf = nonNull.map((t) => convertNode({ ...node, type: t, description: undefined }, deeper));
    return out;
  }

  const declared = nonNull[0];
  const type = declared !== undefined ? TYPES[declared] : inferType(node);
  if (type) out.type = type;
  applyEnum(node, out);
  if (typeof node.format === "string" && out.format === undefined && type && FORMATS[type]?.has(node.format))
    out.format = node.format;
  for (const key of ["minItems", "maxItems", "minimum", "maximum"] as const) {
    if (typeof node[key] === "number") out[key] = node[key] as number;
  }
  if (type === "ARRAY") {
    const items = Array.isArray(node.items) ? node.items[0] : node.items;
    out.items = isObject(items) ? convertNode(items, deeper) : { type: "STRING" };
    if (!out.items.type && !out.items.anyOf) out.items = { ...out.items, type: "STRING" };
  }
  if (type === "OBJECT" && isObject(node.properties)) applyProperties(node, node.properties, out, deeper);
  return out;
}

/** A local `$ref` is inlined (its siblings win); a cycle is cut after one level and said so. */
function convertRef(node: Record<string, unknown>, ref: string, walk: Walk): GeminiSchema {
  if (walk.seen.includes(ref)) {
    walk.notes.push(`recursive schema ${ref} cut after one level`);
    return { type: "OBJECT", description: withText(node.description, `(recursive: same shape as ${ref})`) };
  }
  const target = resolvePointer(walk.root, ref);
  if (target === undefined) {
    walk.notes.push(`unresolvable reference ${ref} left open`);
    return { description: withText(node.description, `(see ${ref})`) };
  }
  const { $ref: _ref, ...siblings } = node;
  return convertNode({ ...target, ...siblings }, { ...walk, seen: [...walk.seen, ref] });
}

/** `anyOf`/`oneOf` become `anyOf`; a `null` branch becomes `nullable`; one branch left is inlined. */
function convertUnion(union: readonly unknown[], out: Mutable, walk: Walk): GeminiSchema {
  const branches = union.filter((b) => !(isObject(b) && b.type === "null"));
  if (branches.length < union.length) out.nullable = true;
  const converted = branches.map((b) => convertNode(b, walk));
  if (converted.length === 1) return { ...converted[0], ...out };
  if (converted.length > 1) out.anyOf = converted;
  return out;
}

/** Gemini enums are strings only: `const` is a one-value enum; other enums are said in words. */
function applyEnum(node: Record<string, unknown>, out: Mutable): void {
  if (node.const !== undefined) {
    out.type = "STRING";
    out.enum = [textOf(node.const)];
    out.format = "enum";
  } else if (Array.isArray(node.enum)) {
    const values = node.enum.filter((v) => v !== null);
    if (values.every((v) => typeof v === "string")) {
      out.enum = values as string[];
      out.format = "enum";
      out.type = "STRING";
    } else {
      out.description = withText(
        out.description,
        `One of: ${values.map((v) => (typeof v === "string" ? JSON.stringify(v) : textOf(v))).join(", ")}`,
      );
    }
  }
}

function applyProperties(
  node: Record<string, unknown>,
  declared: Record<string, unknown>,
  out: Mutable,
  walk: Walk,
): void {
  // A property may be called `__proto__` or `valueOf`: no prototype, own keys only.
  const properties: Record<string, GeminiSchema> = Object.create(null);
  for (const [name, value] of Object.entries(declared)) {
    Object.defineProperty(properties, name, {
      value: convertNode(value, walk),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  out.properties = properties;
  if (Array.isArray(node.required)) {
    const required = node.required.filter(
      (r): r is string => typeof r === "string" && Object.hasOwn(properties, r),
    );
    if (required.length > 0) out.required = required;
  }
}

function inferType(node: Record<string, unknown>): GeminiType | undefined {
  if (isObject(node.properties)) return "OBJECT";
  if (node.items !== undefined) return "ARRAY";
  if (Array.isArray(node.enum) || node.const !== undefined) return "STRING";
  return undefined;
}

/** `allOf` of object schemas merged into one (the common zod/pydantic "extends" shape). */
function mergeAllOf(node: Record<string, unknown>, parts: readonly unknown[]): Record<string, unknown> {
  const { allOf: _allOf, ...rest } = node;
  const properties: Record<string, unknown> = Object.create(null);
  if (isObject(rest.properties)) Object.assign(properties, rest.properties);
  const required = new Set<string>(Array.isArray(rest.required) ? (rest.required as string[]) : []);
  let merged: Record<string, unknown> = { ...rest };
  for (const part of parts) {
    if (!isObject(part)) continue;
    if (isObject(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required))
      for (const r of part.required) if (typeof r === "string") required.add(r);
    const { properties: _p, required: _r, ...other } = part;
    merged = { ...other, ...merged };
  }
  if (Object.keys(properties).length > 0) {
    merged.properties = properties;
    merged.type ??= "object";
  }
  if (required.size > 0) merged.required = [...required];
  return merged;
}

/** A local JSON pointer (`#/$defs/Node`, `#/definitions/x`, `#`) inside the root schema. */
function resolvePointer(root: JsonSchema, ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith("#")) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodePointerPart(raw);
    if (key === undefined) return undefined;
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return isObject(current) ? current : undefined;
}

/** One JSON pointer segment; a malformed percent escape (a server's typo) resolves to nothing. */
function decodePointerPart(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
  } catch {
    return undefined;
  }
}

function withText(existing: unknown, extra: string): string {
  return typeof existing === "string" && existing ? `${existing} ${extra}` : extra;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
