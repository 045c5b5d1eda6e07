import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensurePrivateDir, userDirIn, writeFileExclusive } from "../util/private-path.js";

/**
 * `overflow: "file"`: the whole text of a result that was over a limit goes to a file of its own
 * (private to the user: a folder of ours that others cannot write, file 0600 created exclusively
 * without following links), and the model is told where, so a host (or a file-reading tool) can get
 * the rest without the result flooding the context.
 *
 * The files are bounded: the folder holds at most `maxBytes` of overflow files and none older than
 * `maxAgeMs` (the oldest go first when a new file would not fit), and a bridge removes the files it
 * wrote when it closes unless `keep` is set.
 */

export interface OverflowBudget {
  /** Total size of the overflow files kept in the folder (default 100 MB). */
  readonly maxBytes: number;
  /** Files older than this are removed (default 24 hours). */
  readonly maxAgeMs: number;
}

export const OVERFLOW_BUDGET: OverflowBudget = { maxBytes: 100 * 1024 * 1024, maxAgeMs: 24 * 60 * 60 * 1000 };

/** The default folder: `mcp-bridge-results-<uid>` in the system temp folder. */
export function defaultOverflowDir(): string {
  return join(tmpdir(), `mcp-bridge-results-${process.getuid?.() ?? "user"}`);
}

// `<ms>-<server>-<tool>-<hex>.txt`: only files of this shape are counted or removed by the budget.
const OVERFLOW_NAME = /^\d{13,}-[A-Za-z0-9_-]+-[0-9a-f]{8}\.txt$/;

interface OverflowFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The overflow files of one bridge: writes them within the budget and removes them on close. */
export class OverflowFiles {
  readonly #written = new Set<string>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Writes `full` to a new file in `dir` (a per-user subfolder when the user named a shared folder),
   * else in the default folder, and returns the line to add to the model's text; undefined when the
   * file could not be written or does not fit the budget (the result is then only truncated, as
   * without the option).
   */
  write(
    full: string,
    tool: { readonly server: string; readonly tool: string },
    dir: string | undefined = undefined,
    budget: OverflowBudget = OVERFLOW_BUDGET,
  ): string | undefined {
    const bytes = Buffer.byteLength(full);
    if (bytes > budget.maxBytes) return undefined;
    try {
      const folder = overflowFolder(dir);
      makeRoom(folder, bytes, budget, this.#now());
      const safe = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40) || "_";
      const file = join(
        folder,
        `${this.#now()}-${safe(tool.server)}-${safe(tool.tool)}-${randomBytes(4).toString("hex")}.txt`,
      );
      writeFileExclusive(file, full, 0o600);
      this.#written.add(file);
      return `[The whole result (${full.length} characters) is in the file ${file}; read it in parts if you need more.]`;
    } catch {
      return undefined;
    }
  }

  /** Removes every file this instance wrote (a file already removed by a budget is skipped). */
  removeAll(): void {
    for (const file of this.#written) rmSync(file, { force: true });
    this.#written.clear();
  }
}

/**
 * The folder overflow files go to, made or checked private. Only a folder the user named may be a
 * shared parent (its per-user subfolder is used); the default, named for this user in the system temp
 * folder where anyone may create it first, must itself be ours and closed to others, or it is refused:
 * a folder another user made (0777) and can rename or empty under us is never a parent of our files.
 */
function overflowFolder(named: string | undefined): string {
  const what = "result overflow folder";
  if (named !== undefined) return ensurePrivateDir(userDirIn(named), { what });
  return ensurePrivateDir(defaultOverflowDir(), { what, strict: true });
}

/** Removes files past their age, then the oldest until `incoming` more bytes fit within maxBytes. */
function makeRoom(folder: string, incoming: number, budget: OverflowBudget, now: number): void {
  const files: OverflowFile[] = [];
  for (const name of readdirSync(folder)) {
    if (!OVERFLOW_NAME.test(name)) continue;
    const path = join(folder, name);
    try {
      const stat = lstatSync(path);
      if (stat.isFile()) files.push({ path, size: stat.size, mtimeMs: stat.mtimeMs });
    } catch {
      // removed meanwhile by another bridge
    }
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = files.reduce((sum, file) => sum + file.size, 0);
  for (const file of files) {
    if (now - file.mtimeMs <= budget.maxAgeMs && total + incoming <= budget.maxBytes) break;
    rmSync(file.path, { force: true });
    total -= file.size;
  }
}
