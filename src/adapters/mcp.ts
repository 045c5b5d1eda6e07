import type { Tool } from "@modelcontextprotocol/client";
import type { ToolDefinition } from "../registry/tool-definition.js";
import { definedOnly } from "../util/defined.js";

/**
 * MCP `tools/list` entries (`{ tools: [...] }` holds them) under the exposed names: for hosts that
 * take MCP tool definitions as they are (a re-served catalog, a REST client asking `format=mcp`).
 */
export function toMcpTools(entries: readonly ToolDefinition[]): Tool[] {
  return entries.map(
    (entry) =>
      definedOnly({
        name: entry.name,
        title: entry.title,
        description: entry.description,
        inputSchema: entry.inputSchema,
        outputSchema: entry.outputSchema,
        annotations: entry.annotations,
        icons: entry.icons,
      }) as Tool,
  );
}
