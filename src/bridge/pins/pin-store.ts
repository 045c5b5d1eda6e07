import { createHash } from "node:crypto";
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { ServerDefinition } from "../../config/model.js";
import { readPrivateFile, writePrivateFile } from "../../util/private-file.js";
import { userDirIn } from "../../util/private-path.js";
import { canonicalJson, type PinKind, type PinnedDefinition } from "./fingerprint.js";

/**
 * The pin files: per exact server definition, the fingerprint and pinned fields of each definition
 * the server listed when it was first seen (or last accepted). Beside the catalog cache, 0600, written
 * atomically and never through a link (util/private-file.ts). The file holds no part of the server's
 * definition (env values and headers stay out), only a hash of it.
 */

const FORMAT = 1;
/** A pin file larger than this is not read (a listing of 2,000 large tools stays far below it). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface PinEntry {
  readonly fingerprint: string;
  readonly definition: PinnedDefinition;
}

/** Per kind, per name. */
export type PinTable = Partial<Record<PinKind, Record<string, PinEntry>>>;

export interface PinFile {
  readonly server: string;
  readonly pinnedAt: number;
  readonly pins: PinTable;
}

/**
 * The key of a definition's pins: the whole definition except what only decides what a drift does
 * (`onDrift`), so making a server stricter does not forget its pins.
 */
export function pinKey(definition: ServerDefinition): string {
  const { onDrift: _onDrift, ...rest } = definition;
  return createHash("sha256").update(`mcp-bridge pins ${FORMAT}\0`).update(canonicalJson(rest)).digest("hex");
}

/**
 * What a check needs of a pin file at each listing, without the definitions: per kind, how many names
 * are pinned and one digest of every (name, fingerprint) pair. A listing whose digest matches has not
 * drifted; only one that does not (or `pins accept`) reads the definitions again.
 */
export interface PinSummary {
  readonly pinnedAt: number;
  readonly kinds: Partial<Record<PinKind, { readonly count: number; readonly digest: string }>>;
  /** The `ui://` resources' pins in full: they are checked one read at a time, by name (few, small). */
  readonly uiResource: Readonly<Record<string, PinEntry>> | undefined;
}

/** The digest of a table of pins of one kind (names in code-unit order, so key order does not count). */
export function pinsDigest(entries: Iterable<readonly [string, unknown]>): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  // A damaged entry (no fingerprint) digests as such: it cannot match a listing, which then reads the file.
  for (const [name, entry] of sorted)
    hash.update(`${name}\0${String((entry as { fingerprint?: unknown } | null)?.fingerprint)}\0`);
  return hash.digest("hex");
}

function summaryOf(file: PinFile): PinSummary {
  const kinds: Partial<Record<PinKind, { count: number; digest: string }>> = {};
  for (const [kind, table] of Object.entries(file.pins) as [PinKind, Record<string, PinEntry>][]) {
    if (!table || typeof table !== "object") continue;
    const entries = Object.entries(table);
    kinds[kind] = { count: entries.length, digest: pinsDigest(entries) };
  }
  return { pinnedAt: file.pinnedAt, kinds, uiResource: file.pins.uiResource };
}

export class PinFiles {
  readonly dir: string;
  /**
   * The summary of the last file read or written, per path, with the size and mtime it had: an
   * unchanged file is not parsed again at each listing (a 2,000-tool pin file is megabytes of JSON),
   * and what stays in memory is a digest per kind, not a parsed copy of every definition. Another
   * process's `pins accept` changes the mtime, so it is seen.
   */
  readonly #summaries = new Map<string, { readonly stamp: string; readonly summary: PinSummary }>();

  constructor(dir: string) {
    // A shared folder given as the cache folder (1777, group-writable) gets a subfolder of ours.
    this.dir = userDirIn(dir);
  }

  fileOf(definition: ServerDefinition): string {
    return join(this.dir, `pins-${pinKey(definition).slice(0, 32)}.json`);
  }

  /** The size, mtime and inode of the definition's pin file; undefined when there is none to read. */
  #stampOf(file: string): string | undefined {
    try {
      const stat = lstatSync(file);
      if (stat.size > MAX_FILE_BYTES || !stat.isFile()) return undefined;
      return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    } catch {
      return undefined;
    }
  }

  /** What a check needs of the definition's pins (cached while the file is unchanged; see #summaries). */
  summary(definition: ServerDefinition): PinSummary | undefined {
    const file = this.fileOf(definition);
    const stamp = this.#stampOf(file);
    if (stamp === undefined) return undefined;
    const known = this.#summaries.get(file);
    if (known?.stamp === stamp) return known.summary;
    const parsed = this.#parse(definition, file);
    if (!parsed) return undefined;
    const summary = summaryOf(parsed);
    this.#summaries.set(file, { stamp, summary });
    return summary;
  }

  /**
   * The definition's pins with every pinned definition; undefined when none were saved (or the file is
   * not ours, a link, damaged). Read afresh each time: only a drift or an accept needs them.
   */
  read(definition: ServerDefinition): PinFile | undefined {
    const file = this.fileOf(definition);
    if (this.#stampOf(file) === undefined) return undefined;
    return this.#parse(definition, file);
  }

  #parse(definition: ServerDefinition, file: string): PinFile | undefined {
    const text = readPrivateFile(file);
    if (text === undefined) return undefined;
    try {
      const raw = JSON.parse(text) as Record<string, unknown>;
      if (raw.format !== FORMAT || raw.key !== pinKey(definition)) return undefined;
      if (typeof raw.pinnedAt !== "number" || !raw.pins || typeof raw.pins !== "object") return undefined;
      return { server: definition.name, pinnedAt: raw.pinnedAt, pins: raw.pins as PinTable };
    } catch {
      return undefined;
    }
  }

  /** Saves the pins (throws UNSAFE_PATH for a link or an unsafe folder; the caller reports it). */
  write(definition: ServerDefinition, pins: PinTable, pinnedAt: number): void {
    const text = JSON.stringify({
      format: FORMAT,
      key: pinKey(definition),
      server: definition.name,
      pinnedAt,
      pins,
    });
    writePrivateFile(this.fileOf(definition), text, "pins");
  }
}
