import { lstatSync } from "node:fs";
import { join } from "node:path";
import { CATALOG_CACHE } from "../../config/defaults.js";
import type { ServerDefinition } from "../../config/model.js";
import type { ToolListing } from "../../connection/connection.js";
import type { Logger } from "../../util/logger.js";
import { readPrivateFile, writePrivateFile } from "../../util/private-file.js";
import { userDirIn } from "../../util/private-path.js";
import { errorText } from "../../util/text-of.js";
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
export { userCacheDir as toolListCacheDir } from "../../util/cache-dir.js";
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
