import type { ServerDefinition } from "../../config/model.js";
import type { Logger } from "../../util/logger.js";
import { openSignedText, SIGNATURE_CHARS, signText } from "../../util/signed-text.js";
import {
  type CachedToolList,
  parseCachedToolList,
  type ToolListTextParts,
  toolListKey,
  toolListText,
} from "./tool-list-entry.js";

/**
 * A tool-list cache several bridges share (the gateway's `--store`): a starting replica lists the
 * tools its peers saw for the same server definition before its own connection is up. The store is
 * not trusted: an entry is a hint shown as `catalog: "cache"` until the live list replaces it, a call
 * always waits for the live connection, and what is read back is bounded and checked like a file.
 */
export interface SharedToolLists {
  /**
   * The text stored under `key`, at most `maxBytes` of it (longer text is cut: the check below then
   * refuses it), or undefined when absent or the store does not answer (bounded by the implementation).
   */
  get(key: string, maxBytes: number): Promise<string | undefined>;
  /** Stores `text` under `key` for `ttlMs` (best effort: never throws, never waits for long). */
  set(key: string, text: string, ttlMs: number): void;
  /**
   * A secret the writers and readers share (the gateway's cluster secret): entries are then named by
   * an HMAC of the definition under it, never by its plain hash, which anyone reading the store could
   * test guesses of a secret in the definition (a token in its environment or headers) against; and
   * they are signed with it, so tools someone else wrote to the store (descriptions are what a model
   * reads) are never listed.
   */
  readonly keySecret?: Uint8Array | undefined;
}

/** Largest entry read from or written to a shared store: a store holds many, and every replica reads them. */
export const SHARED_TOOL_LIST_MAX_BYTES = 4 * 1024 * 1024;
/** What an entry is signed for: the tool list of the definition its key names. */
const contextOf = (key: string) => `mcp-bridge catalog entry\0${key}`;

/** Reads and writes the shared entries of exact server definitions (the same key as the files'). */
export class SharedToolListEntries {
  readonly #store: SharedToolLists;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** Per key, the text last written and when, so an unchanged list is not rewritten at every listing. */
  readonly #written = new Map<string, { readonly text: string; readonly savedAt: number }>();

  constructor(store: SharedToolLists, logger: Logger, now: () => number = Date.now) {
    this.#store = store;
    this.#logger = logger;
    this.#now = now;
  }

  async read(definition: ServerDefinition, maxAgeMs: number): Promise<CachedToolList | undefined> {
    const secret = this.#store.keySecret;
    const key = toolListKey(definition, secret);
    const ignored = (reason: string) => {
      this.#logger.debug(`Shared catalog of server "${definition.name}" ignored: ${reason}`, {
        server: definition.name,
      });
      return undefined;
    };
    let stored: string | undefined;
    try {
      stored = await this.#store.get(key, SHARED_TOOL_LIST_MAX_BYTES + SIGNATURE_CHARS + 1);
    } catch {
      return undefined;
    }
    if (stored === undefined) return undefined;
    if (typeof stored !== "string") return ignored("not text");
    const text = secret ? openSignedText(secret, contextOf(key), stored) : stored;
    if (text === undefined) return ignored("not signed with the cluster secret");
    if (Buffer.byteLength(text) > SHARED_TOOL_LIST_MAX_BYTES) return ignored("the entry is too large");
    const now = this.#now();
    const entry = parseCachedToolList(text, key, now);
    if (typeof entry === "string") return ignored(entry);
    // An entry claiming to stay fresh longer than any writer gives one was not written by a replica.
    if (entry.expiresAt > now + maxAgeMs) return ignored("its expiry is too far away");
    return entry;
  }

  /** Saves a listing (a cache entry, see ToolListFiles) unless the same one was saved recently. */
  write(definition: ServerDefinition, parts: ToolListTextParts): void {
    const { savedAt, expiresAt } = parts;
    if (expiresAt <= savedAt) return;
    const secret = this.#store.keySecret;
    const key = toolListKey(definition, secret);
    const text = toolListText(definition, key, parts);
    if (Buffer.byteLength(text) > SHARED_TOOL_LIST_MAX_BYTES) return;
    // The text holds its save time: compare without it, and write again once half the lifetime passed.
    const comparable = text.replace(/"savedAt":\d+,"expiresAt":\d+/, "");
    const known = this.#written.get(key);
    if (known?.text === comparable && savedAt - known.savedAt < (expiresAt - savedAt) / 2) return;
    this.#written.set(key, { text: comparable, savedAt });
    try {
      this.#store.set(key, secret ? signText(secret, contextOf(key), text) : text, expiresAt - savedAt);
    } catch {
      // Best effort: a store that refuses only makes the next replica start colder.
    }
  }
}
