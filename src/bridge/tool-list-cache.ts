import type { Tool } from "@modelcontextprotocol/client";
import type { BridgeSettings } from "../config/model.js";
import type { ServerStatus } from "../connection/server-status.js";
import type { Logger } from "../util/logger.js";
import type { ServerRecord } from "./server-record.js";
import { declaresToolTasks } from "./tasks.js";
import { CatalogCache, type CatalogEntry } from "./tool-list-cache-files.js";

/**
 * Which servers' tools the bridge currently lists from the catalog cache, and the saving of each live
 * list. A server is "served from cache" from the start until its first live list arrives or it fails;
 * meanwhile its status says `catalog: "cache"` and a call to one of its tools waits for it.
 */
export class CachedCatalogs {
  readonly #cache: CatalogCache | undefined;
  /** The host's `catalogCache` option, which overrides the config's setting. */
  readonly #option: boolean | undefined;
  readonly #served = new Map<ServerRecord, CatalogEntry>();

  constructor(options: { dir: string | undefined; option: boolean | undefined; logger: Logger }) {
    this.#cache = options.dir === undefined ? undefined : new CatalogCache(options.dir, options.logger);
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
   * failure) with the capabilities its session declared.
   */
  save(record: ServerRecord, settings: BridgeSettings, capabilities: object | undefined): void {
    const connection = record.connection;
    if (!connection || !this.#enabled(record, settings)) return;
    const status = connection.status();
    if (status.state === "failed" || status.state === "closed") return;
    this.#cache?.write(record.definition, connection.listing(), {
      protocolVersion: status.protocolVersion,
      serverInfo: status.serverInfo,
      capabilities: capabilities as Readonly<Record<string, unknown>> | undefined,
    });
  }

  /** The record's status, marked while its tools come from the cache. */
  status(record: ServerRecord, status: ServerStatus): ServerStatus {
    const cached = this.#served.get(record);
    return cached ? { ...status, catalog: "cache", toolCount: cached.tools.length } : status;
  }
}
