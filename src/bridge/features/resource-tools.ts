import { normalizeNamePart } from "../../registry/naming.js";
import type { ToolDefinition } from "../../registry/tool-definition.js";
import type { ToolResult } from "../../results/tool-result.js";
import { truncateText } from "../../results/truncate.js";
import { definedOnly } from "../../util/defined.js";
import type { CallOptions } from "../api.js";
import type { ResourceCatalog } from "./resources.js";

/** The `server` of the built-in resource tools: they belong to the bridge, not to one server. */
export const BRIDGE_TOOL_SERVER = "mcp-bridge";

/**
 * The exposed name of a bridge tool in the configured format: the `{server}` part and one separator
 * next to it are dropped, so `mcp_{server}_{tool}` gives `mcp_list_resources`.
 */
export function bridgeToolName(format: string, tool: string): string {
  const withoutServer = format.replace(/[_-]?\{server\}[_-]?/, (match) =>
    match.startsWith("_") || match.startsWith("-") ? (match[0] ?? "") : "",
  );
  const name = normalizeNamePart(withoutServer.replaceAll("{tool}", () => tool)).replace(
    /^[_-]+|[_-]+$/g,
    "",
  );
  return name.slice(0, 64) || tool;
}

/** The opt-in pair of tools that lets a model browse and read every server's resources. */
export function resourceToolDefinitions(format: string): ToolDefinition[] {
  return [
    {
      name: bridgeToolName(format, "list_resources"),
      server: BRIDGE_TOOL_SERVER,
      tool: "list_resources",
      description:
        "List the resources (documents, files, data) the connected MCP servers offer: URI, server, name, MIME type and description of each, plus URI templates.",
      inputSchema: {
        type: "object",
        properties: { server: { type: "string", description: "Only this server's resources" } },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: bridgeToolName(format, "read_resource"),
      server: BRIDGE_TOOL_SERVER,
      tool: "read_resource",
      description:
        "Read one resource by its URI (from the resource list, or a URI matching a template). Binary content is described, not returned.",
      inputSchema: {
        type: "object",
        properties: {
          uri: { type: "string", description: "The resource URI" },
          server: { type: "string", description: "The server, when two servers serve the URI" },
        },
        required: ["uri"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ];
}

/** Runs one of the resource tools; failures are thrown as typed errors like any tool call's. */
export async function callResourceTool(
  resources: ResourceCatalog,
  tool: string,
  args: Record<string, unknown>,
  options: CallOptions & { readonly maxResultChars: number },
): Promise<ToolResult> {
  const server = typeof args.server === "string" && args.server !== "" ? args.server : undefined;
  const request = { server, signal: options.signal, timeout: options.timeout };
  if (tool === "list_resources") {
    const [listed, templates] = await Promise.all([resources.list(request), resources.templates(request)]);
    const lines = [
      ...listed.map(
        (r) =>
          `${r.uri} (server: ${r.server}${r.mimeType ? `, ${r.mimeType}` : ""}) ${r.title ?? r.name}${r.description ? `: ${r.description}` : ""}`,
      ),
      ...templates.map(
        (t) =>
          `${t.uriTemplate} (template, server: ${t.server}) ${t.title ?? t.name}${t.description ? `: ${t.description}` : ""}`,
      ),
    ];
    const full = lines.length === 0 ? "No resources." : lines.join("\n");
    const { text, droppedChars } = truncateText(full, options.maxResultChars);
    // A result the host may print as JSON or check with `"truncated" in result`: absent when whole.
    return definedOnly({
      text,
      content: [{ type: "text", text }],
      isError: false,
      truncated: droppedChars > 0 ? { originalChars: full.length, droppedChars } : undefined,
    }) as ToolResult;
  }
  const uri = typeof args.uri === "string" ? args.uri : "";
  const read = await resources.read(uri, {
    ...request,
    maxResultChars: options.maxResultChars,
  });
  return definedOnly({
    text: read.text,
    content: [{ type: "text", text: read.text }],
    isError: false,
    truncated: read.truncated,
  }) as ToolResult;
}
