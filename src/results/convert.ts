import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";
import { McpBridgeError } from "../errors.js";
import { truncateText } from "./truncate.js";
import type { ToolResult } from "./types.js";

export interface ConvertOptions {
  readonly maxResultChars: number;
}

/** Turns an MCP tool result into text an LLM can read, keeping the original blocks beside it. */
export function toToolResult(result: CallToolResult, options: ConvertOptions): ToolResult {
  const content = (Array.isArray(result.content) ? result.content : []) as ContentBlock[];
  const parts: string[] = [];
  let hasText = false;
  for (const block of content) {
    if (block.type === "text") hasText = true;
    const part = blockText(block);
    if (part !== undefined) parts.push(part);
  }
  const structured = result.structuredContent;
  if (!hasText && structured !== undefined) parts.push(stringifySafe(structured));
  const full = parts.join("\n");
  const isError = result.isError === true;
  const { text, droppedChars } = truncateText(full, options.maxResultChars);
  return {
    text,
    content,
    isError,
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(droppedChars > 0 ? { truncated: { originalChars: full.length, droppedChars } } : {}),
  };
}

function blockText(block: ContentBlock): string | undefined {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`;
    case "resource": {
      const resource = block.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      if (typeof resource.text === "string") return resource.text;
      const size = typeof resource.blob === "string" ? `, ${formatBytes(base64Bytes(resource.blob))}` : "";
      return `[resource: ${resource.uri}${resource.mimeType ? ` (${resource.mimeType}${size})` : size ? ` (${size.slice(2)})` : ""}]`;
    }
    case "resource_link":
      return `[resource: ${block.name} <${block.uri}>]`;
    default:
      return `[${String((block as { type?: unknown }).type ?? "unknown")} content]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function stringifySafe(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A failure as a result the LLM can read (`onError: "result"`): text starting with `Error:` that says
 * what failed and what to do, never an empty string.
 */
export function errorToolResult(
  error: unknown,
  context: { server?: string; tool?: string } = {},
): ToolResult {
  const code = error instanceof McpBridgeError ? error.code : "ERROR";
  const message = error instanceof Error ? error.message : String(error);
  const where = [context.tool && `tool "${context.tool}"`, context.server && `server "${context.server}"`]
    .filter(Boolean)
    .join(" on ");
  const text = `Error: ${message || `the call${where ? ` to ${where}` : ""} failed`} [${code}]`;
  return { text, content: [{ type: "text", text }], isError: true };
}
