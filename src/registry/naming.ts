import { createHash } from "node:crypto";

/** The strictest LLM vendor limit (OpenAI and Anthropic): what every exposed name must match. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;

/** Server part: identifier-safe, so `web-search` becomes `web_search` (seed 003). */
export function normalizeServerPart(server: string): string {
  return server.replace(/[^A-Za-z0-9_]/g, "_");
}

/** Tool part: vendors accept `-`, so it stays; anything else outside `[A-Za-z0-9_-]` becomes `_`. */
export function normalizeToolPart(tool: string): string {
  return tool.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The exposed name before collision handling: the format with both parts normalized. */
export function baseToolName(format: string, server: string, tool: string): string {
  const name = format
    .replaceAll("{server}", () => normalizeServerPart(server))
    .replaceAll("{tool}", () => normalizeToolPart(tool))
    .replace(/[^A-Za-z0-9_-]/g, "_");
  return name.length > 0 ? name : "_";
}

/** A short hash of the ORIGINAL names: stable across runs, start orders and machines. */
export function nameHash(server: string, tool: string, length = 6): string {
  return createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, length);
}

/** `base` cut to fit the limit with `_<hash>` appended. */
export function suffixedName(base: string, server: string, tool: string, hashLength = 6): string {
  const suffix = `_${nameHash(server, tool, hashLength)}`;
  return base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}
