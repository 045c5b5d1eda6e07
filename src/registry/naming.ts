import { createHash } from "node:crypto";

/** The strictest LLM vendor limit (OpenAI and Anthropic): what every exposed name must match. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;
/** Hex digits of the suffix given to long or colliding names; longer only to break a hash clash. */
export const NAME_HASH_LENGTH = 6;

/**
 * One name part made safe for every vendor: each code point outside `[A-Za-z0-9_-]` becomes `_`.
 * Code points, not UTF-16 units, so `🔧` is one `_` whatever its encoding.
 */
export function normalizeNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/gu, "_");
}

/** Server part: identifier-safe as well, so `web-search` becomes `web_search` (seed 003). */
export function normalizeServerPart(server: string): string {
  return normalizeNamePart(server).replaceAll("-", "_");
}

/** Tool part: vendors accept `-`, so it stays. */
export function normalizeToolPart(tool: string): string {
  return normalizeNamePart(tool);
}

/**
 * The exposed name before collision handling: the format with both parts normalized. May be longer
 * than 64 characters; the registry (or `formatToolName`) caps it.
 */
export function baseToolName(format: string, server: string, tool: string): string {
  // Function replacements: a name may contain `$&` and the like.
  const name = normalizeNamePart(
    format
      .replaceAll("{server}", () => normalizeServerPart(server))
      .replaceAll("{tool}", () => normalizeToolPart(tool)),
  );
  return name.length > 0 ? name : "_";
}

/** A short hash of the ORIGINAL names: stable across runs, start orders and machines. */
export function nameHash(server: string, tool: string, length = NAME_HASH_LENGTH): string {
  return createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, length);
}

/** `base` cut to fit the limit with `_<hash>` appended. */
export function suffixedName(
  base: string,
  server: string,
  tool: string,
  hashLength = NAME_HASH_LENGTH,
): string {
  const suffix = `_${nameHash(server, tool, hashLength)}`;
  return base.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/**
 * The exposed name of one tool taken alone: always matches `TOOL_NAME_PATTERN`, and a name over 64
 * characters is cut and given the hash suffix. Collisions between tools are the registry's job.
 */
export function formatToolName(format: string, server: string, tool: string): string {
  const base = baseToolName(format, server, tool);
  return base.length > MAX_TOOL_NAME_LENGTH ? suffixedName(base, server, tool) : base;
}
