import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  writeSync,
} from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { auditWriteFailed, unsafePath } from "../errors/index.js";
import { withFileLockSync } from "../util/file-lock.js";
import { NO_FOLLOW, withNoFollowRead } from "../util/no-follow-read.js";
import { ensurePrivateDir, privateDirProblem } from "../util/private-path.js";
import { errorText } from "../util/text-of.js";
import { chainLine, GENESIS, sha256 } from "./audit-chain.js";

/**
 * Appends records to a hash-chained JSONL file that several processes may share (a daemon and a CLI):
 * each append takes the advisory lock `FILE.lock`, reads the last line of the file to chain to it,
 * rotates when the file would pass `maxBytes` (audit.jsonl becomes audit.1.jsonl, audit.1 becomes
 * audit.2, ...; nothing is deleted: retention is the administrator's) and writes one line. Synchronous
 * on purpose: the lock is held for one short append, and no other call of this process can interleave.
 * The file is created 0600 exclusively and never opened through a symbolic link; its folder must be
 * this user's and not writable by others.
 */

const isWindows = process.platform === "win32";

export class AuditLog {
  readonly file: string;
  readonly maxBytes: number;
  #folderChecked = false;

  constructor(file: string, maxBytes: number) {
    this.file = file;
    this.maxBytes = maxBytes;
  }

  /** Writes one record (its `seq`, `prev` and `hash` are added); throws AUDIT_FAILED when it cannot. */
  append(record: Record<string, unknown>): void {
    try {
      if (!this.#folderChecked) {
        ensurePrivateDir(dirname(this.file), { what: "audit log folder" });
        this.#folderChecked = true;
      }
      withFileLockSync(this.file, () => this.#appendLocked(record), { timeoutMs: 5_000 });
    } catch (error) {
      throw auditWriteFailed({ file: this.file, detail: errorText(error), cause: error });
    }
  }

  #appendLocked(record: Record<string, unknown>): void {
    let fd = openAuditFile(this.file);
    try {
      const size = fstatSync(fd).size;
      const last = size > 0 ? lastLine(fd, size) : lastLineOf(rotatedName(this.file, 1));
      const seq = last === undefined ? 1 : seqOf(last) + 1;
      const prev = last === undefined ? GENESIS : sha256(last);
      const entry: Record<string, unknown> = { v: 1, seq, ...record };
      // An empty current file after an earlier one: its first record continues that file's chain.
      if (size === 0 && last !== undefined) entry.rotated = true;
      let line = chainLine(entry, prev);
      if (size > 0 && size + Buffer.byteLength(line) + 1 > this.maxBytes) {
        closeSync(fd);
        rotate(this.file);
        fd = openAuditFile(this.file);
        entry.rotated = true;
        line = chainLine(entry, prev);
      }
      writeSync(fd, `${line}\n`);
    } finally {
      closeSync(fd);
    }
  }
}

/** `audit.jsonl` -> `audit.1.jsonl`; a name without extension -> `audit.1`. */
export function rotatedName(file: string, n: number): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}.${n}${ext}`);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function rotate(file: string): void {
  let top = 1;
  while (exists(rotatedName(file, top))) top++;
  for (let n = top - 1; n >= 1; n--) renameSync(rotatedName(file, n), rotatedName(file, n + 1));
  renameSync(file, rotatedName(file, 1));
}

/** Creates the file 0600 exclusively, or opens the existing one: never a link, ours, not writable by others. */
function openAuditFile(file: string): number {
  const flags = constants.O_RDWR | constants.O_APPEND | NO_FOLLOW;
  let fd: number;
  try {
    fd = openSync(file, flags | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    fd = openSync(file, flags);
  }
  const problem = fileProblem(fstatSync(fd));
  if (problem !== undefined) {
    closeSync(fd);
    throw unsafePath({ path: file, what: "audit log", problem });
  }
  return fd;
}

/** The last line of an open file (without its newline), read backwards in chunks. */
function lastLine(fd: number, size: number): string {
  let buffer = Buffer.alloc(0);
  let position = size;
  for (;;) {
    // Small first reads: a record is usually well under 4 KB, and this runs on every append.
    const length = Math.min(buffer.length === 0 ? 4_096 : buffer.length * 2, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    readSync(fd, chunk, 0, length, position);
    buffer = Buffer.concat([chunk, buffer]);
    const end = buffer.at(-1) === 10 ? buffer.length - 1 : buffer.length;
    const start = buffer.lastIndexOf(10, end - 1);
    if (start !== -1 || position === 0) return buffer.subarray(start + 1, end).toString("utf8");
  }
}

function lastLineOf(file: string): string | undefined {
  return withNoFollowRead(file, (fd) => {
    const size = fstatSync(fd).size;
    return size > 0 ? lastLine(fd, size) : undefined;
  });
}

function seqOf(line: string): number {
  const match = /^\{"v":1,"seq":(\d+),/.exec(line);
  return match ? Number(match[1]) : 0;
}

/** Why an existing audit file may not be appended to, or undefined. */
function fileProblem(stat: Stats): string | undefined {
  const uid = isWindows ? undefined : process.getuid?.();
  if (!stat.isFile()) return stat.isSymbolicLink() ? "it is a symbolic link" : "it is not a regular file";
  if (uid !== undefined && stat.uid !== uid) return `it is owned by uid ${stat.uid}, not by this user`;
  if (!isWindows && (stat.mode & 0o022) !== 0)
    return `its mode ${(stat.mode & 0o777).toString(8)} lets others write to it`;
  return undefined;
}

/**
 * Why records could not be written to `file` (`config validate`), without creating anything: its
 * folder as ensurePrivateDir would judge it (or could not create it), or the file as the log would
 * refuse it; undefined when the log would work.
 */
export function auditFileProblem(file: string): string | undefined {
  const folder = privateDirProblem(dirname(file));
  if (folder !== undefined) return `its folder ${dirname(file)}: ${folder}`;
  try {
    return fileProblem(lstatSync(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? undefined : `it cannot be read (${code ?? errorText(error)})`;
  }
}
