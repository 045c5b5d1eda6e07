import type { FlatParameter, FlatParameters, FlatParameterType, JsonSchema } from "./tool-definition.js";

const FLAT_TYPES = new Set<FlatParameterType>(["string", "number", "integer", "boolean", "array", "object"]);
const UNFLATTENABLE = ["anyOf", "oneOf", "allOf", "$ref", "not", "if", "patternProperties"] as const;

/** How deep nested objects are shown; a deeper one is named in `omitted` (a schema may be huge). */
const MAX_DEPTH = 8;

/**
 * A flat parameter list for hosts whose tool model has only named, typed parameters; an object
 * parameter lists its own (`properties`), an array of objects its items' (`items`), recursively. What
 * a flat list cannot express is named in `omitted` (by its path, `a.b`, `list[].c`) and makes
 * `complete` false; the whole schema still goes out untouched in every other export.
 */
export function flattenParameters(schema: JsonSchema): FlatParameters {
  const omitted: string[] = [];
  for (const keyword of UNFLATTENABLE) {
    if (schema[keyword] !== undefined) omitted.push(`the schema uses "${keyword}" at the top level`);
  }
  if (schema.type !== undefined && schema.type !== "object") {
    omitted.push(`the schema is not an object schema (type ${JSON.stringify(schema.type)})`);
  }
  if (isObject(schema.additionalProperties)) {
    omitted.push("the schema accepts additional properties of any name");
  }
  const parameters = flattenProperties(schema, "", omitted, 0);
  return { parameters, complete: omitted.length === 0, omitted };
}

/** The parameters of an object schema's `properties`, `prefix` naming where it sits (for `omitted`). */
function flattenProperties(
  schema: Record<string, unknown>,
  prefix: string,
  omitted: string[],
  depth: number,
): FlatParameter[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  return Object.entries(properties).map(([name, raw]) =>
    flatParameter(name, isObject(raw) ? raw : {}, required.has(name), `${prefix}${name}`, omitted, depth),
  );
}

function flatParameter(
  name: string,
  property: Record<string, unknown>,
  required: boolean,
  path: string,
  omitted: string[],
  depth: number,
): FlatParameter {
  const type = flatType(property);
  if (type === undefined) {
    omitted.push(`"${path}" has no single JSON type (${describeShape(property)}); treated as string`);
  }
  for (const keyword of UNFLATTENABLE) {
    if (property[keyword] !== undefined && type !== undefined) omitted.push(`"${path}" uses "${keyword}"`);
  }
  const items = isObject(property.items) ? property.items : undefined;
  const objectItems = type === "array" && items !== undefined && flatType(items) === "object";
  const nested = type === "object" || objectItems;
  if (nested && depth + 1 >= MAX_DEPTH) omitted.push(`"${path}" is nested deeper than ${MAX_DEPTH} levels`);
  const deeper = nested && depth + 1 < MAX_DEPTH;
  if (type === "object" && isObject(property.additionalProperties))
    omitted.push(`"${path}" accepts additional properties of any name`);
  return {
    name,
    type: type ?? "string",
    required,
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    ...(Array.isArray(property.enum) ? { enum: property.enum } : {}),
    ...(property.default !== undefined ? { default: property.default } : {}),
    ...(deeper && type === "object" && isObject(property.properties)
      ? { properties: flattenProperties(property, `${path}.`, omitted, depth + 1) }
      : {}),
    ...(deeper && objectItems && items && isObject(items.properties)
      ? { items: flattenProperties(items, `${path}[].`, omitted, depth + 1) }
      : {}),
  };
}

function flatType(property: Record<string, unknown>): FlatParameterType | undefined {
  const type = property.type;
  if (typeof type === "string")
    return FLAT_TYPES.has(type as FlatParameterType) ? (type as FlatParameterType) : undefined;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== "null");
    if (nonNull.length === 1 && FLAT_TYPES.has(nonNull[0] as FlatParameterType))
      return nonNull[0] as FlatParameterType;
    return undefined;
  }
  if (Array.isArray(property.enum) && property.enum.every((value) => typeof value === "string"))
    return "string";
  return undefined;
}

function describeShape(property: Record<string, unknown>): string {
  const keys = UNFLATTENABLE.filter((keyword) => property[keyword] !== undefined);
  if (keys.length > 0) return keys.join(", ");
  return property.type === undefined ? "no type" : `type ${JSON.stringify(property.type)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
