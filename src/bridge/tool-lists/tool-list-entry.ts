import { createHash, createHmac } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/client";
import { CATALOG_CACHE } from "../../config/defaults.js";
import type { ServerDefinition } from "../../config/model.js";
import type { ToolListing } from "../../connection/connection.js";
import { omitUndefined } from "../../util/defined.js";

/**
 * One tool-list cache entry (a file's, or a shared store's): its key, its text, and reading it back
 * with every field checked (an entry is never trusted: a file may be damaged, a store hostile).
 */

/** What a start reads back: the tools and what the server said about itself when they were listed. */
export interface CachedToolList {
  readonly tools: readonly Tool[];
  readonly savedAt: number;
  readonly expiresAt: number;
  readonly protocolVersion?: string;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /**
   * The server's capabilities from the handshake that listed the tools: which tools can be called
   * depends on them (task-required tools), and there is no live handshake yet while the cache is used.
   * Absent in files written before they were kept.
   */
  readonly capabilities?: Readonly<Record<string, unknown>>;
}

/** JSON with object keys sorted, so equal definitions hash alike whatever order their keys were written in. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (!inner || typeof inner !== "object" || Array.isArray(inner)) return inner;
    return Object.fromEntries(
      Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });
}

/**
 * The cache key of a definition: sha256 over the format version and the whole definition; with a
 * `secret`, an HMAC-SHA256 under it instead (a shared store's names: whoever reads the store but lacks
 * the secret cannot test guesses of a secret in a definition against them).
 */
export function toolListKey(definition: ServerDefinition, secret?: Uint8Array): string {
  return (secret ? createHmac("sha256", secret) : createHash("sha256"))
    .update(`mcp-bridge catalog ${CATALOG_CACHE.format}\0`)
    .update(stableJson(definition))
    .digest("hex");
}

/**
 * When a listing goes stale: the server's `ttlMs` (2026-07-28 list results; 0 means stale at once),
 * at most the cache's own limit; without one, the cache's limit.
 */
export function expiryOf(savedAt: number, ttlMs: number | undefined): number {
  const ttl =
    ttlMs === undefined ? CATALOG_CACHE.maxAgeMs : Math.min(Math.max(0, ttlMs), CATALOG_CACHE.maxAgeMs);
  return savedAt + ttl;
}

/** A cache file's text as an entry, or why it cannot be used (stale, another format, damaged). */
export function parseCachedToolList(text: string, key: string, now: number): CachedToolList | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return "not valid JSON";
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "not an object";
  const entry = raw as Record<string, unknown>;
  if (entry.format !== CATALOG_CACHE.format) return "written by another version";
  if (entry.key !== key) return "made for another definition";
  const { savedAt, expiresAt, tools } = entry;
  if (typeof savedAt !== "number" || typeof expiresAt !== "number") return "no timestamps";
  // A clock set back past the save time makes the age unknowable: treated as stale.
  if (expiresAt <= now || savedAt > now) return "stale";
  if (
    !Array.isArray(tools) ||
    !tools.every((tool) => tool && typeof tool === "object" && !Array.isArray(tool))
  )
    return "no tool list";
  const serverInfo = entry.serverInfo as { name?: unknown; version?: unknown } | undefined;
  const capabilities = entry.capabilities;
  // omitUndefined: a field the file lacks stays absent in the entry read back, as in the one saved.
  return omitUndefined({
    tools: tools as Tool[],
    savedAt,
    expiresAt,
    protocolVersion: typeof entry.protocolVersion === "string" ? entry.protocolVersion : undefined,
    serverInfo:
      serverInfo && typeof serverInfo.name === "string" && typeof serverInfo.version === "string"
        ? { name: serverInfo.name, version: serverInfo.version }
        : undefined,
    capabilities:
      capabilities && typeof capabilities === "object" && !Array.isArray(capabilities)
        ? (capabilities as Record<string, unknown>)
        : undefined,
  });
}

/** What a cache entry's text is made of (see `toolListText`). */
export interface ToolListTextParts {
  readonly toolsJson: string;
  readonly capabilitiesJson: string;
  readonly about: Pick<CachedToolList, "protocolVersion" | "serverInfo" | "capabilities">;
  readonly savedAt: number;
  readonly expiresAt: number;
}

/** A listing as a cache entry's text (a file's, or a shared store's), under `key` (see `toolListKey`). */
export function toolListText(definition: ServerDefinition, key: string, entry: ToolListTextParts): string {
  const { about, savedAt, expiresAt } = entry;
  return `{"format":${CATALOG_CACHE.format},"key":${JSON.stringify(key)},"server":${JSON.stringify(
    definition.name,
  )},"savedAt":${savedAt},"expiresAt":${expiresAt}${
    about.protocolVersion === undefined ? "" : `,"protocolVersion":${JSON.stringify(about.protocolVersion)}`
  }${about.serverInfo === undefined ? "" : `,"serverInfo":${JSON.stringify(about.serverInfo)}`}${
    about.capabilities === undefined ? "" : `,"capabilities":${entry.capabilitiesJson}`
  },"tools":${entry.toolsJson}}`;
}

/** A listing that may be kept: not one a server scopes to an authorization context the definition lacks. */
export function keepable(definition: ServerDefinition, listing: ToolListing): boolean {
  // A list the server scopes to one authorization context is not kept for a server whose context
  // (its OAuth account) is not part of the definition: another account must not see it.
  return !(listing.cacheScope === "private" && "oauth" in definition && definition.oauth);
}
