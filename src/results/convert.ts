import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";
import { ErrorCode, McpBridgeError } from "../errors/index.js";
import { omitUndefined } from "../util/defined.js";
import { textOf } from "../util/text-of.js";
import type { Tokenizer } from "../util/token-count.js";
import type { ToolResult } from "./tool-result.js";
import { truncateText, truncationMarker } from "./truncate.js";

export interface ConvertOptions {
  readonly maxResultChars: number;
  /** Also a limit in tokens (needs `tokenizer`). */
  readonly maxResultTokens?: number;
  readonly tokenizer?: Tokenizer;
  /**
   * Called with the whole text when it is over a limit; returns a line to add to what the model
   * reads (where the whole result was put). The line counts against the limits.
   */
  readonly overflow?: (full: string) => string | undefined;
}

/** Turns an MCP tool result into text an LLM can read, keeping the original blocks beside it. */
export function toToolResult(result: CallToolResult, options: ConvertOptions): ToolResult {
  const content = (Array.isArray(result.content) ? result.content : []) as ContentBlock[];
  const parts: string[] = [];
  let hasText = false;
  for (const block of content) {
    if ((block as { type?: unknown } | null)?.type === "text") hasText = true;
    const part = blockText(block);
    if (part !== undefined) parts.push(part);
  }
  const structured = result.structuredContent;
  if (!hasText && structured !== undefined) parts.push(textOf(structured, 2));
  const isError = result.isError === true;
  // An error the LLM cannot see is worse than none: say that the tool failed silently.
  if (isError && parts.every((part) => part.trim() === ""))
    parts.push("Error: the tool failed without a message.");
  const full = parts.join("\n");
  const { text, droppedChars } = limitText(full, options);
  return omitUndefined({
    text,
    content,
    isError,
    structuredContent: structured,
    truncated: droppedChars > 0 ? { originalChars: full.length, droppedChars } : undefined,
  });
}

/** The text within the character and token limits, with the overflow line when it was cut. */
function limitText(full: string, options: ConvertOptions): { text: string; droppedChars: number } {
  const { maxResultTokens: maxTokens, tokenizer } = options;
  const overTokens =
    maxTokens !== undefined &&
    tokenizer !== undefined &&
    full.length > maxTokens &&
    tokenizer.count(full) > maxTokens;
  if (!overTokens && (options.maxResultChars <= 0 || full.length <= options.maxResultChars)) {
    return { text: full, droppedChars: 0 };
  }
  const note = options.overflow?.(full);
  const suffix = note ? `\n${note}` : "";
  let maxChars =
    options.maxResultChars > 0 ? Math.max(0, options.maxResultChars - suffix.length) : full.length;
  if (overTokens && maxTokens !== undefined && tokenizer !== undefined) {
    // The marker and note take tokens too: leave room for them, then cut at a token boundary.
    const reserve = tokenizer.count(`${truncationMarker(full.length)}${suffix}`);
    maxChars = Math.min(
      maxChars,
      tokenizer.prefix(full, Math.max(0, maxTokens - reserve)).length + truncationMarker(full.length).length,
    );
  }
  const cut = truncateText(full, maxChars);
  return { text: cut.text + suffix, droppedChars: cut.droppedChars };
}

/** One block's contribution to the text. Servers send odd things: nothing here may throw. */
export function blockText(raw: ContentBlock): string | undefined {
  if (!raw || typeof raw !== "object") return `[${raw === null ? "null" : typeof raw} content]`;
  const block = raw as ContentBlock & Record<string, unknown>;
  switch (block.type) {
    case "text":
      return textOf(block.text ?? "");
    case "image":
    case "audio":
      return `[${block.type}: ${mediaDescription(block.mimeType, block.data)}]`;
    case "resource": {
      const resource = (block.resource ?? {}) as {
        uri?: unknown;
        mimeType?: unknown;
        text?: unknown;
        blob?: unknown;
      };
      if (typeof resource.text === "string") return resource.text;
      const details = [
        typeof resource.mimeType === "string" ? resource.mimeType : undefined,
        typeof resource.blob === "string" ? formatBytes(base64Bytes(resource.blob)) : undefined,
      ].filter(Boolean);
      return `[resource: ${textOf(resource.uri ?? "unknown")}${details.length > 0 ? ` (${details.join(", ")})` : ""}]`;
    }
    case "resource_link":
      return `[resource: ${textOf(block.name ?? block.title ?? "link")} <${textOf(block.uri)}>]`;
    default:
      return `[${textOf((block as { type?: unknown }).type ?? "unknown").slice(0, 40)} content]`;
  }
}

function mediaDescription(mimeType: unknown, data: unknown): string {
  const type = typeof mimeType === "string" && mimeType ? mimeType : "unknown type";
  return typeof data === "string" ? `${type}, ${formatBytes(base64Bytes(data))}` : type;
}

/** Decoded size from the base64 length, without decoding a possibly large payload. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The text for a host whose tool-result message has no error flag (OpenAI Chat Completions, the AI
 * SDK's string output): a failed result says so in its first word.
 */
export function textForModel(result: Pick<ToolResult, "text" | "isError">): string {
  return result.isError && !result.text.startsWith("Error") ? `Error: ${result.text}` : result.text;
}

/** What the model can do about each failure, said once here rather than at every throw site. */
const ADVICE: Partial<Record<string, string>> = {
  [ErrorCode.ToolTimeout]: "The tool took too long; retry with a smaller request, or later.",
  [ErrorCode.Aborted]: "The call was cancelled before it finished.",
  [ErrorCode.InvalidArguments]: "Fix the listed arguments and call the tool again.",
  [ErrorCode.ToolNotFound]: "Call one of the tools you were given instead.",
  [ErrorCode.ServerUnavailable]: "The tool's server is not reachable now; retry later or use another tool.",
  [ErrorCode.ServerCrashed]: "The tool's server stopped during the call; retry once, then use another tool.",
  [ErrorCode.ResultTooLarge]: "Ask the tool for less data at once.",
};

/**
 * A failure as a result the LLM can read (`onError: "result"`): `Error: <what failed, where>
 * <what to do> [<code>]`. Never an empty string.
 */
export function errorToolResult(
  error: unknown,
  context: { server?: string; tool?: string } = {},
): ToolResult {
  const code = error instanceof McpBridgeError ? error.code : "ERROR";
  const where = [context.tool && `tool "${context.tool}"`, context.server && `server "${context.server}"`]
    .filter(Boolean)
    .join(" on ");
  let message = messageOf(error).trim();
  if (!message) message = `The call${where ? ` to ${where}` : ""} failed without a message.`;
  // Typed errors already name server and tool; anything else gets them here.
  else if (!(error instanceof McpBridgeError) && where) message = `The call to ${where} failed: ${message}`;
  if (!/[.!?)\]]$/.test(message)) message += ".";
  const advice = ADVICE[code];
  const text = `Error: ${message}${advice ? ` ${advice}` : ""} [${code}]`;
  return { text, content: [{ type: "text", text }], isError: true };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === "string") return message;
  return error === undefined || error === null ? "" : textOf(error, 2);
}
