import type { JsonSchema, ToolDefinition } from "../registry/types.js";
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
  /** Produce schemas valid for OpenAI strict mode (structured outputs). */
  readonly strict?: boolean;
}

const plainCache = new WeakMap<ToolDefinition, OpenAITool>();
const strictCache = new WeakMap<ToolDefinition, OpenAITool>();

/** Chat Completions `tools` entries (seed 001's generate_tool_definition_from_mcp_tool). */
export function toOpenAITools(
  entries: readonly ToolDefinition[],
  options: OpenAIToolOptions = {},
): OpenAITool[] {
  const cache = options.strict ? strictCache : plainCache;
  return entries.map((entry) => {
    let tool = cache.get(entry);
    if (!tool) {
      tool = {
        type: "function",
        function: {
          name: entry.name,
          description: entry.description,
          parameters: options.strict ? toStrictSchema(entry.inputSchema) : objectSchema(entry.inputSchema),
          ...(options.strict ? { strict: true } : {}),
        },
      };
      cache.set(entry, tool);
    }
    return tool;
  });
}

/** Keywords strict mode rejects; they only constrain values, so dropping them keeps the shape. */
const UNSUPPORTED = new Set([
  "$schema",
  "default",
  "format",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "examples",
  "title",
  "propertyNames",
]);

/**
 * OpenAI strict mode: every object lists all its properties in `required` and has
 * `additionalProperties: false`; a property that was optional becomes nullable, and
 * `fromOpenAIStrictArguments` turns its `null` back into "absent" before the call.
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  return strictNode(objectSchema(schema)) as JsonSchema;
}

function strictNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictNode);
  if (!node || typeof node !== "object") return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (UNSUPPORTED.has(key)) continue;
    if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, strictNode(child)]),
      );
    } else if (
      ["items", "anyOf", "oneOf", "allOf", "$defs", "definitions", "additionalProperties"].includes(key)
    ) {
      out[key] = key === "$defs" || key === "definitions" ? mapValues(value, strictNode) : strictNode(value);
    } else out[key] = value;
  }
  if (out.oneOf && !out.anyOf) {
    out.anyOf = out.oneOf;
    delete out.oneOf;
  }
  const isObject = out.type === "object" || (out.properties !== undefined && out.type === undefined);
  if (isObject) {
    const properties = (out.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(source.required) ? (source.required as string[]) : []);
    for (const [name, child] of Object.entries(properties)) {
      if (!required.has(name)) properties[name] = nullable(child);
    }
    out.type = "object";
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  return out;
}

function nullable(schema: unknown): unknown {
  if (!schema || typeof schema !== "object") return { anyOf: [schema, { type: "null" }] };
  const node = schema as Record<string, unknown>;
  if (typeof node.type === "string") return { ...node, type: [node.type, "null"] };
  if (Array.isArray(node.type))
    return node.type.includes("null") ? node : { ...node, type: [...node.type, "null"] };
  return { anyOf: [node, { type: "null" }] };
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fn(item)]));
}

/** Undoes the strict-mode nullability: `null` for a property that was optional means "not given". */
export function fromOpenAIStrictArguments(
  entry: ToolDefinition,
  args: Record<string, unknown>,
): Record<string, unknown> {
  return stripNulls(entry.inputSchema, args) as Record<string, unknown>;
}

function stripNulls(schema: unknown, value: unknown): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value) || !schema || typeof schema !== "object") {
    if (Array.isArray(value) && schema && typeof schema === "object") {
      const items = (schema as Record<string, unknown>).items;
      return value.map((item) => stripNulls(items, item));
    }
    return value;
  }
  const node = schema as Record<string, unknown>;
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null && !required.has(key) && key in properties) continue;
    out[key] = stripNulls(properties[key], item);
  }
  return out;
}
