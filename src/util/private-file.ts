import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { ErrorCode, McpBridgeError } from "../errors.js";

/**
 * Files only the user may read (OAuth tokens, project approvals): 0600 in a 0700 folder. A folder that
 * already exists with looser permissions is tightened, and a file that is a symbolic link is never read
 * or written through: another user or program could point it at a file it controls or wants clobbered.
 */

// Windows has no O_NOFOLLOW; there the lstat check before opening is what refuses a link.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const isWindows = process.platform === "win32";

/** True when `file` does not exist or is a regular file (not a link, folder, fifo, ...). */
export function isRegularOrAbsent(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return true;
  }
}

export interface PrivateFileOptions {
  /**
   * Remove group/other access from an existing folder (default true). Off for a file kept in a folder
   * the user also keeps other things in (their config folder), whose permissions are theirs to choose.
   */
  readonly tightenFolder?: boolean;
}

/** The file's text; undefined when it is absent, unreadable or a symbolic link (refused). */
export function readPrivateFile(file: string, options: PrivateFileOptions = {}): string | undefined {
  if (!isRegularOrAbsent(file)) return undefined;
  if (options.tightenFolder !== false) tightenDir(dirname(file), false);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    // A file someone else owns was planted, not written by us: not believed.
    const mine = process.getuid === undefined || stat.uid === process.getuid();
    if (!stat.isFile() || !mine) return undefined;
    if (!isWindows && options.tightenFolder !== false && (stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a fresh 0600 file and renames it over `file`: the rename replaces a link placed meanwhile
 * instead of following it, and a crash never leaves a half-written file. Refuses when `file` is a link.
 */
export function writePrivateFile(
  file: string,
  text: string,
  what: string,
  options: PrivateFileOptions = {},
): void {
  if (!isRegularOrAbsent(file)) {
    throw new McpBridgeError(
      ErrorCode.Usage,
      `The ${what} file ${file} is a symbolic link or not a regular file; mcp-bridge refuses to write through it. Delete it and try again.`,
    );
  }
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (options.tightenFolder !== false) tightenDir(dir, true);
  const temporary = join(dir, `.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
    0o600,
  );
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Removes group/other access from a folder (created 0700 by the caller when `create`). */
function tightenDir(dir: string, create: boolean): void {
  if (isWindows) return;
  try {
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch (error) {
    if (create) throw error;
  }
}
