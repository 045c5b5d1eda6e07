import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import { CATALOG_CACHE } from "../config/defaults.js";
import type { BridgeSettings, ServerDefinition } from "../config/model.js";
import type { ToolListing } from "../connection/connection.js";
import type { ServerStatus } from "../connection/server-status.js";
import type { Logger } from "../util/logger.js";
import { readPrivateFile, writePrivateFile } from "../util/private-file.js";
import { userDirIn } from "../util/private-path.js";
import { errorText } from "../util/text-of.js";
import type { ServerRecord } from "./server-record.js";
import { SharedToolListEntries, type SharedToolLists } from "./shared-tool-lists.js";
import { declaresToolTasks } from "./tasks.js";
import {
  type CachedToolList,
  expiryOf,
  keepable,
  parseCachedToolList,
  toolListKey,
  toolListText,
} from "./tool-list-entry.js";

/**
 * The tool-list cache: each server's last live tool list, so a start can hand the host every tool at
 * once while the connections come up behind it. One file per exact server definition (a hash of the
 * whole definition, so any change of command, args, env, URL or headers is a miss), 0600 in the
 * user's cache folder. A file holds the hash, the tool list and when it goes stale, never the
 * definition itself: env values and headers (often secrets) stay out of it.
 */

/** The cache folder (see util/cache-dir.ts). */
export { userCacheDir as toolListCacheDir } from "../util/cache-dir.js";
export { type CachedToolList, expiryOf, parseCachedToolList, toolListKey } from "./tool-list-entry.js";

/** `MCP_BRIDGE_CATALOG_CACHE=0|false|off` turns the cache off for a whole environment (CI, tests). */
export function toolListCacheSwitchedOff(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.MCP_BRIDGE_CATALOG_CACHE?.trim().toLowerCase();
  return value === "0" || value === "false" || value === "off" || value === "no";
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
    if (!keepable(definition, listing)) return;
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
    const text = toolListText(definition, key, { toolsJson, capabilitiesJson, about, savedAt, expiresAt });
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
  /** The entries other bridges saved (`fetchShared`), waiting for `load`. */
  readonly #shared: SharedToolListEntries | undefined;
  readonly #fetched = new Map<ServerRecord, CachedToolList>();

  constructor(options: {
    dir: string | undefined;
    option: boolean | undefined;
    logger: Logger;
    shared?: SharedToolLists | undefined;
  }) {
    this.#cache = options.dir === undefined ? undefined : new ToolListFiles(options.dir, options.logger);
    this.#option = options.option;
    this.#shared = options.shared && new SharedToolListEntries(options.shared, options.logger);
  }

  #enabled(record: ServerRecord, settings: BridgeSettings): boolean {
    if ((!this.#cache && !this.#shared) || record.connection === undefined) return false;
    if (!(this.#option ?? settings.catalogCache ?? true)) return false;
    return record.definition.catalogCache ?? true;
  }

  /**
   * For a record about to start: its cached tools, if there is a fresh entry for its exact definition
   * (it is then served from cache until its live list arrives). Disabled servers get none.
   */
  load(record: ServerRecord, settings: BridgeSettings): readonly Tool[] | undefined {
    if (!this.#usable(record, settings)) return undefined;
    const fetched = this.#fetched.get(record);
    this.#fetched.delete(record);
    const entry = this.#cache?.read(record.definition) ?? fetched;
    if (!entry) return undefined;
    this.#served.set(record, entry);
    return entry.tools;
  }

  #usable(record: ServerRecord, settings: BridgeSettings): boolean {
    return this.#enabled(record, settings) && record.definition.enabled && settings.enabled;
  }

  /**
   * Before `load`: the entries other bridges saved in the shared store for these records' exact
   * definitions (read at once, each bounded by the store), for the records without a local entry.
   */
  async fetchShared(records: readonly ServerRecord[], settings: BridgeSettings): Promise<void> {
    const shared = this.#shared;
    if (!shared) return;
    await Promise.all(
      records.map(async (record) => {
        if (!this.#usable(record, settings) || this.#cache?.read(record.definition)) return;
        const entry = await shared.read(record.definition, CATALOG_CACHE.maxAgeMs);
        if (entry) this.#fetched.set(record, entry);
      }),
    );
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
    const about = {
      protocolVersion: status.protocolVersion,
      serverInfo: status.serverInfo,
      capabilities: listing.capabilities as Readonly<Record<string, unknown>> | undefined,
    };
    this.#cache?.write(record.definition, listing, about);
    if (this.#shared && keepable(record.definition, listing)) {
      const savedAt = Date.now();
      const expiresAt = expiryOf(savedAt, listing.ttlMs);
      this.#shared.write(record.definition, {
        toolsJson: JSON.stringify(listing.tools),
        capabilitiesJson: JSON.stringify(about.capabilities ?? null),
        about,
        savedAt,
        expiresAt,
      });
    }
  }

  /** The record's status, marked while its tools come from the cache. */
  status(record: ServerRecord, status: ServerStatus): ServerStatus {
    const cached = this.#served.get(record);
    return cached ? { ...status, catalog: "cache", toolCount: cached.tools.length } : status;
  }
}
