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

export class PinFiles {
  readonly dir: string;
  /**
   * The last file read or written, per path, with the size and mtime it had: an unchanged file is
   * not parsed again at each listing (a 2,000-tool pin file is megabytes of JSON). Another process's
   * `pins accept` changes the mtime, so it is seen.
   */
  readonly #parsed = new Map<string, { readonly stamp: string; readonly file: PinFile }>();

  constructor(dir: string) {
    // A shared folder given as the cache folder (1777, group-writable) gets a subfolder of ours.
    this.dir = userDirIn(dir);
  }

  fileOf(definition: ServerDefinition): string {
    return join(this.dir, `pins-${pinKey(definition).slice(0, 32)}.json`);
  }

  /** The definition's pins; undefined when none were saved (or the file is not ours, a link, damaged). */
  read(definition: ServerDefinition): PinFile | undefined {
    const file = this.fileOf(definition);
    let stamp: string;
    try {
      const stat = lstatSync(file);
      if (stat.size > MAX_FILE_BYTES || !stat.isFile()) return undefined;
      stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    } catch {
      return undefined;
    }
    const known = this.#parsed.get(file);
    if (known?.stamp === stamp) return known.file;
    const text = readPrivateFile(file);
    if (text === undefined) return undefined;
    try {
      const raw = JSON.parse(text) as Record<string, unknown>;
      if (raw.format !== FORMAT || raw.key !== pinKey(definition)) return undefined;
      if (typeof raw.pinnedAt !== "number" || !raw.pins || typeof raw.pins !== "object") return undefined;
      const parsed: PinFile = { server: definition.name, pinnedAt: raw.pinnedAt, pins: raw.pins as PinTable };
      this.#parsed.set(file, { stamp, file: parsed });
      return parsed;
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
