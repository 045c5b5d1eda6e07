import { createHash } from "node:crypto";
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import { CATALOG_CACHE } from "../config/defaults.js";
import type { BridgeSettings, ServerDefinition } from "../config/model.js";
import type { ToolListing } from "../connection/connection.js";
import type { ServerStatus } from "../connection/server-status.js";
import { omitUndefined } from "../util/defined.js";
import type { Logger } from "../util/logger.js";
import { readPrivateFile, writePrivateFile } from "../util/private-file.js";
import { userDirIn } from "../util/private-path.js";
import { errorText } from "../util/text-of.js";
import type { ServerRecord } from "./server-record.js";
import { declaresToolTasks } from "./tasks.js";

/**
 * The tool-list cache: each server's last live tool list, so a start can hand the host every tool at
 * once while the connections come up behind it. One file per exact server definition (a hash of the
 * whole definition, so any change of command, args, env, URL or headers is a miss), 0600 in the
 * user's cache folder. A file holds the hash, the tool list and when it goes stale, never the
 * definition itself: env values and headers (often secrets) stay out of it.
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

/** The cache folder (see util/cache-dir.ts). */
export { userCacheDir as toolListCacheDir } from "../util/cache-dir.js";

/** `MCP_BRIDGE_CATALOG_CACHE=0|false|off` turns the cache off for a whole environment (CI, tests). */
export function toolListCacheSwitchedOff(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.MCP_BRIDGE_CATALOG_CACHE?.trim().toLowerCase();
  return value === "0" || value === "false" || value === "off" || value === "no";
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

/** The cache key of a definition: sha256 over the format version and the whole definition. */
export function toolListKey(definition: ServerDefinition): string {
  return createHash("sha256")
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

/** The cache files of one folder. Never throws: a cache that cannot be read or written is only slower. */
export class ToolListFiles {
  readonly #dir: string;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #maxFileBytes: number;
  /**
   * Per key, the JSON of the tools last read or written and when they were saved, so an unchanged live
   * list is not rewritten at every start (only once it is half-way to going stale).
   */
  readonly #known = new Map<
    string,
    { readonly tools: string; readonly savedAt: number; readonly expiresAt: number }
  >();

  constructor(
    dir: string,
    logger: Logger,
    options: { readonly now?: () => number; readonly maxFileBytes?: number } = {},
  ) {
    // A shared folder given as the cache folder (1777, group-writable) gets a subfolder of ours.
    this.#dir = userDirIn(dir);
    this.#logger = logger;
    this.#now = options.now ?? Date.now;
    this.#maxFileBytes = options.maxFileBytes ?? CATALOG_CACHE.maxFileBytes;
  }

  fileOf(definition: ServerDefinition): string {
    return join(this.#dir, `tools-${toolListKey(definition).slice(0, 32)}.json`);
  }

  read(definition: ServerDefinition): CachedToolList | undefined {
    const file = this.fileOf(definition);
    const ignored = (reason: string) => {
      this.#logger.debug(`Catalog cache of server "${definition.name}" ignored: ${reason}`, {
        server: definition.name,
        file,
      });
      return undefined;
    };
    try {
      if (lstatSync(file).size > this.#maxFileBytes) return ignored("the file is too large");
    } catch {
      return undefined;
    }
    const text = readPrivateFile(file);
    if (text === undefined) return ignored("the file cannot be read");
    const key = toolListKey(definition);
    const entry = parseCachedToolList(text, key, this.#now());
    if (typeof entry === "string") return ignored(entry);
    this.#known.set(key, {
      tools: `${JSON.stringify(entry.tools)}\0${JSON.stringify(entry.capabilities ?? null)}`,
      savedAt: entry.savedAt,
      expiresAt: entry.expiresAt,
    });
    return entry;
  }

  /** Saves a live listing (unless it is the one the file already holds). */
  write(
    definition: ServerDefinition,
    listing: ToolListing,
    about: Pick<CachedToolList, "protocolVersion" | "serverInfo" | "capabilities">,
  ): void {
    // A list the server scopes to one authorization context is not kept for a server whose context
    // (its OAuth account) is not part of the definition: another account must not see it.
    if (listing.cacheScope === "private" && definition.transport !== "stdio" && definition.oauth) return;
    const key = toolListKey(definition);
    const toolsJson = JSON.stringify(listing.tools);
    const capabilitiesJson = JSON.stringify(about.capabilities ?? null);
    // The capabilities are part of what must match: a server that gains task support is saved again.
    const tools = `${toolsJson}\0${capabilitiesJson}`;
    const savedAt = this.#now();
    const expiresAt = expiryOf(savedAt, listing.ttlMs);
    const known = this.#known.get(key);
    const fresh = known && savedAt - known.savedAt < (known.expiresAt - known.savedAt) / 2;
    // A list the file already holds is rewritten only to push its expiry out once half of it has
    // passed, or to bring it nearer (a server that now asks for a shorter ttlMs).
    if (known?.tools === tools && fresh && expiresAt >= known.expiresAt) return;
    const text = `{"format":${CATALOG_CACHE.format},"key":${JSON.stringify(key)},"server":${JSON.stringify(
      definition.name,
    )},"savedAt":${savedAt},"expiresAt":${expiresAt}${
      about.protocolVersion === undefined ? "" : `,"protocolVersion":${JSON.stringify(about.protocolVersion)}`
    }${about.serverInfo === undefined ? "" : `,"serverInfo":${JSON.stringify(about.serverInfo)}`}${
      about.capabilities === undefined ? "" : `,"capabilities":${capabilitiesJson}`
    },"tools":${toolsJson}}`;
    if (Buffer.byteLength(text) > this.#maxFileBytes) {
      this.#logger.debug(`Catalog cache of server "${definition.name}" not saved: the list is too large`, {
        server: definition.name,
      });
      return;
    }
    try {
      writePrivateFile(this.fileOf(definition), text, "catalog cache");
      this.#known.set(key, { tools, savedAt, expiresAt });
    } catch (error) {
      this.#logger.debug(`Catalog cache of server "${definition.name}" not saved: ${errorText(error)}`, {
        server: definition.name,
      });
    }
  }
}

/**
 * Which servers' tools the bridge currently lists from the catalog cache, and the saving of each live
 * list. A server is "served from cache" from the start until its first live list arrives or it fails;
 * meanwhile its status says `catalog: "cache"` and a call to one of its tools waits for it.
 */
export class ToolListCache {
  readonly #cache: ToolListFiles | undefined;
  /** The host's `catalogCache` option, which overrides the config's setting. */
  readonly #option: boolean | undefined;
  readonly #served = new Map<ServerRecord, CachedToolList>();

  constructor(options: { dir: string | undefined; option: boolean | undefined; logger: Logger }) {
    this.#cache = options.dir === undefined ? undefined : new ToolListFiles(options.dir, options.logger);
    this.#option = options.option;
  }

  #enabled(record: ServerRecord, settings: BridgeSettings): boolean {
    if (!this.#cache || record.connection === undefined) return false;
    if (!(this.#option ?? settings.catalogCache ?? true)) return false;
    return record.definition.catalogCache ?? true;
  }

  /**
   * For a record about to start: its cached tools, if there is a fresh entry for its exact definition
   * (it is then served from cache until its live list arrives). Disabled servers get none.
   */
  load(record: ServerRecord, settings: BridgeSettings): readonly Tool[] | undefined {
    if (!this.#enabled(record, settings) || !record.definition.enabled || !settings.enabled) return undefined;
    const entry = this.#cache?.read(record.definition);
    if (!entry) return undefined;
    this.#served.set(record, entry);
    return entry.tools;
  }

  /** The cached tools while the record is served from cache. */
  tools(record: ServerRecord): readonly Tool[] | undefined {
    return this.#served.get(record)?.tools;
  }

  /**
   * Task support while served from cache: what the server declared when the cached tools were listed
   * (there is no live handshake yet). A file from before capabilities were kept cannot say: its tools
   * are not hidden then (a call waits for the live connection, whose list then decides).
   */
  toolTasks(record: ServerRecord): boolean {
    const capabilities = this.#served.get(record)?.capabilities;
    return capabilities === undefined || declaresToolTasks(capabilities);
  }

  served(record: ServerRecord): boolean {
    return this.#served.has(record);
  }

  /** The record's live list arrived (or it failed): no longer served from cache. Returns whether it was. */
  end(record: ServerRecord): boolean {
    return this.#served.delete(record);
  }

  /**
   * Saves the record's live listing (a connected or connecting server's; not the empty list of a
   * failure) with the capabilities the session that listed it declared.
   */
  save(record: ServerRecord, settings: BridgeSettings): void {
    const connection = record.connection;
    if (!connection || !this.#enabled(record, settings)) return;
    const status = connection.status();
    if (status.state === "failed" || status.state === "closed") return;
    const listing = connection.listing();
    this.#cache?.write(record.definition, listing, {
      protocolVersion: status.protocolVersion,
      serverInfo: status.serverInfo,
      capabilities: listing.capabilities as Readonly<Record<string, unknown>> | undefined,
    });
  }

  /** The record's status, marked while its tools come from the cache. */
  status(record: ServerRecord, status: ServerStatus): ServerStatus {
    const cached = this.#served.get(record);
    return cached ? { ...status, catalog: "cache", toolCount: cached.tools.length } : status;
  }
}
