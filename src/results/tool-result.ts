import type { ContentBlock } from "@modelcontextprotocol/client";

/** A tool result in the shape an LLM host needs: readable text plus the original parts. */
export interface ToolResult {
  /** Everything the LLM should read, already truncated to the configured size. */
  readonly text: string;
  /** The original content blocks (images and audio stay here for multimodal hosts). */
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError: boolean;
  /** Present when `text` was cut: how many characters the untruncated text had and how many were dropped. */
  readonly truncated?: { readonly originalChars: number; readonly droppedChars: number };
}
