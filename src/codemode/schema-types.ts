import type { JsonSchema } from "../registry/tool-definition.js";

/**
 * A JSON Schema as a TypeScript type, for the declarations a model reads. The rule: never narrower
 * than the schema. What TypeScript cannot say exactly widens: a `oneOf` becomes a plain union, a
 * `not`, a pattern or a bound is dropped, a tuple becomes `unknown[]`, a remote or recursive `$ref`
 * becomes `unknown`; anything not understood is `unknown`. A program written against the type may
 * still be refused by the tool (the server validates), but a valid call is never typed as wrong.
 */

/** Deeper than this, a schema is shown as `unknown` (a declaration is for reading, not a proof). */
const MAX_DEPTH = 8;
/** An enum longer than this is its base type: a hundred literals cost tokens and teach nothing. */
const MAX_LITERALS = 30;

interface Walk {
  readonly root: JsonSchema;
  /** `$ref`s being expanded on the current path: meeting one again is a recursion. */
  readonly expanding: ReadonlySet<string>;
  readonly depth: number;
  readonly indent: string;
}

export function schemaToType(schema: unknown, indent = ""): string {
  if (!isSchema(schema)) return "unknown";
  return typeOf(schema, { root: schema, expanding: new Set(), depth: 0, indent });
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(schema: unknown, walk: Walk): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchema(schema) || walk.depth > MAX_DEPTH) return "unknown";
  const inner: Walk = { ...walk, depth: walk.depth + 1 };

  if (typeof schema.$ref === "string") return refType(schema.$ref, inner);
  if ("const" in schema) return literal(schema.const) ?? "unknown";
  if (Array.isArray(schema.enum)) {
    const literals = schema.enum.map(literal);
    if (literals.length > 0 && literals.length <= MAX_LITERALS && literals.every((l) => l !== undefined))
      return union(literals as string[]);
    return "unknown";
  }
  const alternatives = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    // A sibling `type` or `properties` narrows each alternative in JSON Schema; a plain union of the
    // alternatives is wider than that, so it is still never wrong.
    return nullable(schema, union(alternatives.map((alt) => typeOf(alt, inner))));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map((part) => typeOf(part, inner));
    // An intersection is exact for objects; for anything else it is easy to get wrong: widen.
    const objects = schema.allOf.every(
      (part) => isSchema(part) && (part.type === "object" || part.properties),
    );
    return nullable(schema, objects ? parts.map((p) => parenthesized(p)).join(" & ") : "unknown");
  }

  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) {
    if (isSchema(schema.properties)) return nullable(schema, objectType(schema, inner));
    if (schema.items !== undefined) return nullable(schema, arrayType(schema, inner));
    return "unknown";
  }
  return nullable(schema, union(types.map((type) => namedType(type, schema, inner))));
}

function namedType(type: unknown, schema: JsonSchema, walk: Walk): string {
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return arrayType(schema, walk);
    case "object":
      return objectType(schema, walk);
    default:
      return "unknown";
  }
}

function arrayType(schema: JsonSchema, walk: Walk): string {
  // A tuple (`prefixItems`, or `items` as an array in draft 7) has no exact spelling here: unknown[].
  if (schema.prefixItems !== undefined || Array.isArray(schema.items)) return "unknown[]";
  return `${parenthesized(typeOf(schema.items, walk))}[]`;
}

function objectType(schema: JsonSchema, walk: Walk): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  const closed = schema.additionalProperties === false && schema.patternProperties === undefined;
  if (names.length === 0) {
    if (closed) return "Record<string, never>";
    const extra = schema.additionalProperties;
    // Values of extra keys have the `additionalProperties` type only when no pattern decides otherwise.
    const value = isSchema(extra) && schema.patternProperties === undefined ? typeOf(extra, walk) : "unknown";
    return `{ [key: string]: ${value} }`;
  }
  const pad = `${walk.indent}  `;
  const inner: Walk = { ...walk, indent: pad };
  const lines = names.map((name) => {
    const property = properties[name];
    const doc = isSchema(property) ? docLine(property.description ?? property.title) : "";
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    const optional = required.has(name) ? "" : "?";
    return `${doc ? `${pad}/** ${doc} */\n` : ""}${pad}${key}${optional}: ${typeOf(property, inner)};`;
  });
  // Other keys are allowed unless the schema closes the object: say so, with the widest value type
  // (an index signature must fit every declared property too).
  if (!closed) lines.push(`${pad}[key: string]: unknown;`);
  return `{\n${lines.join("\n")}\n${walk.indent}}`;
}

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root) expanded in place. */
function refType(ref: string, walk: Walk): string {
  if (!ref.startsWith("#") || walk.expanding.has(ref)) return "unknown";
  const target = pointer(walk.root, ref.slice(1));
  if (target === undefined) return "unknown";
  return typeOf(target, { ...walk, expanding: new Set([...walk.expanding, ref]) });
}

function pointer(root: JsonSchema, path: string): unknown {
  if (path === "") return root;
  if (!path.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of path.slice(1).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isSchema(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A JSON value as a literal type; objects and arrays have none here (the caller widens). */
function literal(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** OpenAPI's `nullable: true` (common in MCP servers generated from OpenAPI) adds `null`. */
function nullable(schema: JsonSchema, type: string): string {
  return schema.nullable === true && type !== "unknown" ? union([type, "null"]) : type;
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes("unknown")) return "unknown";
  const kept = unique.filter((type) => type !== "never");
  if (kept.length === 0) return "never";
  return kept.length === 1 ? (kept[0] as string) : kept.map(parenthesized).join(" | ");
}

/**
 * Wraps a type that may hold a union or an intersection in parentheses where it becomes part of a
 * larger one. Parentheses where none are needed are harmless; a missing pair changes the type.
 */
function parenthesized(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

/** One line of a description for a doc comment, unable to close the comment. */
export function docLine(text: unknown, max = 300): string {
  if (typeof text !== "string") return "";
  const line = text.replace(/\s+/g, " ").trim().replace(/\*\//g, "*\\/");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
