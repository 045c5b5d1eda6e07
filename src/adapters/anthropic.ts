import type { JsonSchema, ToolDefinition } from "../registry/tool-definition.js";

export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonSchema;
}

/** Anthropic Messages API `tools` entries; the input schema goes out as the server gave it. */
export function toAnthropicTools(entries: readonly ToolDefinition[]): AnthropicTool[] {
  return entries.map((entry) => ({
    name: entry.name,
    description: entry.description,
    input_schema: objectSchema(entry.inputSchema),
  }));
}

/** Vendors require a top-level object schema; MCP servers sometimes omit `type`. */
export function objectSchema(schema: JsonSchema): JsonSchema {
  return schema.type === undefined ? { type: "object", ...schema } : schema;
}
