import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { omitUndefined } from "../util/defined.js";
import { base64Bytes, formatBytes } from "./convert.js";
import { truncateText } from "./truncate.js";

/** One part of a read resource, as the server sent it (blobs decoded only on request). */
export interface ResourcePart {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text?: string;
  /** Decoded size of a blob part, in bytes. */
  readonly size?: number;
  /** The blob's bytes; only with `binary: true`. */
  readonly bytes?: Uint8Array;
}

/** A read resource in the shape an LLM host needs: readable text plus the parts. */
export interface ResourceContent {
  readonly server: string;
  readonly uri: string;
  /** Text parts in full, blobs as `[blob: <uri> (<mime>, <size>)]`; truncated like tool results. */
  readonly text: string;
  readonly parts: readonly ResourcePart[];
  readonly truncated?: { readonly originalChars: number; readonly droppedChars: number };
}

export interface ResourceConvertOptions {
  readonly maxResultChars: number;
  /** Decode blobs into `bytes` (default false: size and MIME type only). */
  readonly binary?: boolean;
}

/**
 * Turns `resources/read` contents into text an LLM can read, with the same truncation as tool
 * results. Servers send odd things: nothing here may throw.
 */
export function toResourceContent(
  server: string,
  uri: string,
  result: ReadResourceResult,
  options: ResourceConvertOptions,
): ResourceContent {
  const contents = Array.isArray(result.contents) ? (result.contents as unknown[]) : [];
  const parts: ResourcePart[] = [];
  const texts: string[] = [];
  for (const raw of contents) {
    const item = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const partUri = typeof item.uri === "string" ? item.uri : uri;
    const mimeType = typeof item.mimeType === "string" && item.mimeType ? item.mimeType : undefined;
    if (typeof item.text === "string") {
      parts.push(omitUndefined({ uri: partUri, mimeType, text: item.text }));
      texts.push(item.text);
    } else if (typeof item.blob === "string") {
      const size = base64Bytes(item.blob);
      const bytes = options.binary ? new Uint8Array(Buffer.from(item.blob, "base64")) : undefined;
      parts.push(omitUndefined({ uri: partUri, mimeType, size: bytes ? bytes.byteLength : size, bytes }));
      texts.push(`[blob: ${partUri} (${mimeType ?? "unknown type"}, ${formatBytes(size)})]`);
    } else {
      parts.push(omitUndefined({ uri: partUri, mimeType }));
      texts.push(`[resource: ${partUri} (no content)]`);
    }
  }
  if (texts.length === 0) texts.push(`[resource: ${uri} (empty)]`);
  const full = texts.join("\n");
  const { text, droppedChars } = truncateText(full, options.maxResultChars);
  return omitUndefined({
    server,
    uri,
    text,
    parts,
    truncated: droppedChars > 0 ? { originalChars: full.length, droppedChars } : undefined,
  });
}
