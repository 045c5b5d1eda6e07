import type { Tool } from "@modelcontextprotocol/client";
import { CATALOG_CACHE } from "../../config/defaults.js";
import type { BridgeSettings } from "../../config/model.js";
import type { ServerConnection } from "../../connection/server-connection.js";
import type { ServerStatus } from "../../connection/server-status.js";
import type { Logger } from "../../util/logger.js";
import type { CatalogDeclarations } from "../features/feature-context.js";
import type { ServerRecord } from "../servers/server-record.js";
import { declaresToolTasks } from "../tasks.js";
import { SharedToolListEntries, type SharedToolLists } from "./shared-tool-lists.js";
import { type CachedToolList, expiryOf, keepable } from "./tool-list-entry.js";

import { ToolListFiles } from "./tool-list-files.js";

/**
 * Which servers' tools the bridge currently lists from the catalog cache, and the saving of each live
 * list. A server is "served from cache" from the start until its first live list arrives or it fails;
 * meanwhile its status says `catalog: "cache"` and a call to one of its tools waits for it.
 */
export class ToolListCache implements CatalogDeclarations {
  readonly #cache: ToolListFiles | undefined;
  /** The host's `catalogCache` option, which overrides the config's setting. */
  readonly #option: boolean | undefined;
  readonly #served = new Map<ServerRecord, CachedToolList>();
  /** The entries other bridges saved (`fetchShared`), waiting for `load`. */
  readonly #shared: SharedToolListEntries | undefined;
  readonly #fetched = new Map<ServerRecord, CachedToolList>();
  /** The records left to start on first use (cleared with their cache entry, see `end`). */
  readonly #onUse = new Set<ServerRecord>();

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

  /** The record was not started with the bridge: it waits for its first use (lazyWithCatalog). */
  startsOnUse(record: ServerRecord): void {
    this.#onUse.add(record);
  }

  /**
   * CatalogDeclarations.declaresUnstarted: a record waiting for its first use, still listed from the
   * cache (starting, or not started yet), whose cached capabilities declare `capability`.
   */
  declaresUnstarted(connection: ServerConnection, capability: string): boolean {
    for (const record of this.#onUse) {
      if (record.connection !== connection) continue;
      return this.#served.get(record)?.capabilities?.[capability] !== undefined;
    }
    return false;
  }

  served(record: ServerRecord): boolean {
    return this.#served.has(record);
  }

  /** The record's live list arrived (or it failed): no longer served from cache. Returns whether it was. */
  end(record: ServerRecord): boolean {
    this.#onUse.delete(record);
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
