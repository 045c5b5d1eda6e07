import type { FlatParameter, FlatParameters, FlatParameterType, JsonSchema } from "./tool-definition.js";

const FLAT_TYPES = new Set<FlatParameterType>(["string", "number", "integer", "boolean", "array", "object"]);
const UNFLATTENABLE = ["anyOf", "oneOf", "allOf", "$ref", "not", "if", "patternProperties"] as const;

/** Levels of nested objects listed as dotted parameters; deeper objects stay one `object` parameter. */
export const MAX_FLAT_DEPTH = 4;

/**
 * A flat parameter list for hosts whose tool model has only named, typed parameters. A nested object
 * is listed by its fields, under dotted names (`address.city`, with `path` for names that contain a
 * dot), down to MAX_FLAT_DEPTH levels. What a flat list cannot express is named in `omitted` and
 * makes `complete` false; the whole schema still goes out untouched in every other export.
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
  const parameters: FlatParameter[] = [];
  flattenProperties(schema, { path: [], required: true }, parameters, omitted);
  return { parameters, complete: omitted.length === 0, omitted };
}

/**
 * The properties of an object schema at `parent.path`, appended in order; a nested object's fields
 * take its place. A field is required when it and every object above it are. Schemas are JSON (no
 * `$ref` is followed), so the recursion ends with the schema, and MAX_FLAT_DEPTH bounds it anyway.
 */
function flattenProperties(
  schema: Record<string, unknown>,
  parent: { path: readonly string[]; required: boolean },
  parameters: FlatParameter[],
  omitted: string[],
): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  for (const [key, raw] of Object.entries(properties)) {
    const path = [...parent.path, key];
    const name = path.join(".");
    const property = isObject(raw) ? raw : {};
    const type = flatType(property);
    const isRequired = parent.required && required.has(key);
    if (type === undefined) {
      omitted.push(`"${name}" has no single JSON type (${describeShape(property)}); treated as string`);
    }
    for (const keyword of UNFLATTENABLE) {
      if (property[keyword] !== undefined && type !== undefined) omitted.push(`"${name}" uses "${keyword}"`);
    }
    if (type === "object" && hasFields(property)) {
      if (path.length <= MAX_FLAT_DEPTH) {
        if (isObject(property.additionalProperties)) {
          omitted.push(`"${name}" accepts additional properties of any name`);
        }
        flattenProperties(property, { path, required: isRequired }, parameters, omitted);
        continue;
      }
      omitted.push(`"${name}" is nested deeper than ${MAX_FLAT_DEPTH} levels`);
    }
    if (type === "array" && isObject(property.items) && flatType(property.items) === "object") {
      omitted.push(`"${name}" is an array of objects`);
    }
    parameters.push({
      name,
      ...(path.length > 1 ? { path } : {}),
      type: type ?? "string",
      required: isRequired,
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      ...(Array.isArray(property.enum) ? { enum: property.enum } : {}),
      ...(property.default !== undefined ? { default: property.default } : {}),
    });
  }
}

/** An object schema that names its fields (an empty or open one stays a single `object` parameter). */
function hasFields(property: Record<string, unknown>): boolean {
  return isObject(property.properties) && Object.keys(property.properties).length > 0;
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
