import type { JsonSchema, ToolDefinition } from "../registry/tool-definition.js";
import { objectSchema } from "./anthropic.js";

export interface OpenAITool {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: JsonSchema;
    readonly strict?: boolean;
  };
}

export interface OpenAIToolOptions {
  /**
   * Produce schemas valid for OpenAI strict mode (structured outputs). A tool whose schema strict
   * mode cannot express (free-form objects, `allOf`, untyped values, ...) goes out with its plain
   * schema and `strict: false` rather than a schema that would forbid arguments the tool accepts.
   */
  readonly strict?: boolean;
}

export interface StrictSchema {
  readonly schema: JsonSchema;
  /** Why the schema cannot be strict (empty: `schema` is valid for strict mode). */
  readonly problems: readonly string[];
}

const plainCache = new WeakMap<ToolDefinition, OpenAITool>();
const strictCache = new WeakMap<ToolDefinition, OpenAITool>();
const strictSchemas = new WeakMap<JsonSchema, StrictSchema>();

/**
 * Chat Completions `tools` entries. Entries are
 * cached per definition object, which the registry keeps stable while a tool is unchanged.
 */
export function toOpenAITools(
  entries: readonly ToolDefinition[],
  options: OpenAIToolOptions = {},
): OpenAITool[] {
  const strict = options.strict === true;
  const cache = strict ? strictCache : plainCache;
  return entries.map((entry) => {
    let tool = cache.get(entry);
    if (!tool) {
      const converted = strict ? toStrictSchema(entry.inputSchema) : undefined;
      const usable = converted !== undefined && converted.problems.length === 0;
      tool = {
        type: "function",
        function: {
          name: entry.name,
          description: entry.description,
          parameters: usable ? converted.schema : objectSchema(entry.inputSchema),
          ...(strict ? { strict: usable } : {}),
        },
      };
      cache.set(entry, tool);
    }
    return tool;
  });
}

/** Keywords strict mode rejects; they only constrain values (the server still checks them). */
const DROPPED = new Set([
  "$schema",
  "$id",
  "$comment",
  "default",
  "examples",
  "format",
  "minLength",
  "maxLength",
  "pattern",
  "contentEncoding",
  "contentMediaType",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "readOnly",
  "writeOnly",
  "deprecated",
]);

/** Keywords that change which values are valid in ways strict mode cannot express. */
const INEXPRESSIBLE = new Set([
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "prefixItems",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "$recursiveRef",
]);

const SUBSCHEMA_MAPS = new Set(["$defs", "definitions"]);

/**
 * OpenAI strict mode: every object lists all its properties in `required` and has
 * `additionalProperties: false`; a property that was optional becomes nullable (and
 * `fromOpenAIStrictArguments` turns its `null` back into "absent" before the call); `oneOf` becomes
 * `anyOf`; value constraints strict mode rejects are dropped. `problems` lists what cannot be
 * expressed at all; the schema is only valid for strict mode when it is empty.
 */
export function toStrictSchema(schema: JsonSchema): StrictSchema {
  let converted = strictSchemas.get(schema);
  if (!converted) {
    const problems: string[] = [];
    const root = objectSchema(schema);
    if (!isObjectType(root)) problems.push("$: the top level is not an object schema");
    if (root.anyOf !== undefined || root.oneOf !== undefined) problems.push("$: the top level is a union");
    const out = strictNode(root, "$", problems, true) as JsonSchema;
    converted = { schema: out, problems };
    strictSchemas.set(schema, converted);
  }
  return converted;
}

function strictNode(node: unknown, path: string, problems: string[], root = false): unknown {
  if (!isRecord(node)) {
    problems.push(`${path}: ${node === true ? "accepts any value" : "is not a schema object"}`);
    return node;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (INEXPRESSIBLE.has(key)) {
      problems.push(`${path}: uses "${key}"`);
      continue;
    }
    if (key === "properties" && isRecord(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, strictNode(child, `${path}.${name}`, problems)]),
      );
    } else if (SUBSCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          strictNode(child, `${path}.${key}.${name}`, problems),
        ]),
      );
    } else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      out.anyOf = [
        ...((out.anyOf as unknown[] | undefined) ?? []),
        ...value.map((child, index) => strictNode(child, `${path}.${key}[${index}]`, problems)),
      ];
    } else if (key === "items") {
      out.items = strictNode(value, `${path}.items`, problems);
    } else if (key === "additionalProperties" || key === "required") {
      // Rewritten below from the object's own properties.
    } else setOwn(out, key, value);
  }

  if (out.type === undefined && out.anyOf === undefined && out.$ref === undefined) {
    const inferred = inferType(out);
    if (inferred !== undefined) out.type = inferred;
    else if (out.properties !== undefined) out.type = "object";
    else problems.push(`${path}: has no type (any value is allowed)`);
  }
  if (typesOf(out).includes("array") && out.items === undefined) {
    problems.push(`${path}: an array without "items"`);
  }
  if (isObjectType(out)) {
    const properties = (out.properties ?? {}) as Record<string, unknown>;
    const extra = node.additionalProperties;
    // A free-form object (a map) would become an object that accepts nothing: not strict material.
    // The top level without properties is a tool without arguments, which strict mode expresses.
    if (Object.keys(properties).length === 0 && !root && extra !== false) {
      problems.push(`${path}: a free-form object (no fixed properties)`);
    }
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const [name, child] of Object.entries(properties)) {
      if (!required.has(name)) properties[name] = nullable(child);
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

/** The same schema, also accepting `null` (which stands for "not given"). */
function nullable(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  if (Array.isArray(schema.anyOf)) {
    return schema.anyOf.some((branch) => isRecord(branch) && branch.type === "null")
      ? schema
      : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  if (schema.$ref !== undefined || schema.type === undefined) {
    const { description, ...rest } = schema;
    return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: "null" }] };
  }
  const out: Record<string, unknown> = { ...schema };
  const types = typesOf(schema);
  if (!types.includes("null")) out.type = [...types, "null"];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if ("const" in out) {
    out.enum = [out.const, null];
    delete out.const;
  }
  return out;
}

function inferType(node: Record<string, unknown>): string | string[] | undefined {
  const values = Array.isArray(node.enum) ? node.enum : "const" in node ? [node.const] : undefined;
  if (!values || values.length === 0) return undefined;
  const types = [...new Set(values.map(jsonType))];
  if (types.includes("object") || types.includes("array")) return undefined;
  return types.length === 1 ? types[0] : types;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typesOf(node: Record<string, unknown>): string[] {
  if (typeof node.type === "string") return [node.type];
  return Array.isArray(node.type) ? node.type.filter((t): t is string => typeof t === "string") : [];
}

function isObjectType(node: Record<string, unknown>): boolean {
  return typesOf(node).includes("object");
}

/** Also for a key named `__proto__` (JSON.parse makes it an own key; `=` would set the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Undoes the strict-mode nullability before the call: `null` for a property that was optional in
 * the original schema means "not given", so the key is removed (at any depth, through local `$ref`s
 * and `anyOf`/`oneOf` branches). `null` for a required property is passed on as sent. Arguments of a
 * tool exported without strict mode pass through unchanged, apart from such nulls.
 */
export function fromOpenAIStrictArguments(
  entry: Pick<ToolDefinition, "inputSchema">,
  args: Record<string, unknown>,
): Record<string, unknown> {
  return stripNulls(entry.inputSchema, entry.inputSchema, args, 0) as Record<string, unknown>;
}

function stripNulls(root: JsonSchema, schema: unknown, value: unknown, depth: number): unknown {
  const node = resolveRef(root, schema);
  if (!node || depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => stripNulls(root, node.items, item, depth + 1));
  const record = value as Record<string, unknown>;
  const branch = objectBranch(root, node, record);
  const properties = isRecord(branch.properties) ? branch.properties : {};
  const required = new Set(Array.isArray(branch.required) ? branch.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) {
    if (item === null && Object.hasOwn(properties, key) && !required.has(key)) continue;
    setOwn(
      out,
      key,
      stripNulls(root, Object.hasOwn(properties, key) ? properties[key] : undefined, item, depth + 1),
    );
  }
  return out;
}

/** The branch of a union that describes this object: the one whose properties cover its keys. */
function objectBranch(
  root: JsonSchema,
  node: Record<string, unknown>,
  value: Record<string, unknown>,
): Record<string, unknown> {
  if (node.properties !== undefined) return node;
  const branches = [
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...(Array.isArray(node.oneOf) ? node.oneOf : []),
  ]
    .map((branch) => resolveRef(root, branch))
    .filter(
      (branch): branch is Record<string, unknown> => branch !== undefined && isRecord(branch.properties),
    );
  const keys = Object.keys(value);
  return (
    branches.find((branch) => keys.every((key) => Object.hasOwn(branch.properties as object, key))) ??
    branches[0] ??
    node
  );
}

/** Follows local references (`#`, `#/$defs/...`, `#/definitions/...`); others stay unresolved. */
function resolveRef(root: JsonSchema, schema: unknown): Record<string, unknown> | undefined {
  let node = isRecord(schema) ? schema : undefined;
  for (let hops = 0; node && typeof node.$ref === "string" && hops < 16; hops++) {
    const ref = node.$ref as string;
    if (!ref.startsWith("#")) return node;
    let target: unknown = root;
    for (const segment of ref.slice(1).split("/").slice(1)) {
      const key = decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~");
      target = isRecord(target) ? target[key] : undefined;
    }
    if (!isRecord(target)) return node;
    node = target;
  }
  return node;
}
