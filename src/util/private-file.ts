import { closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ensurePrivateDir, replaceFileAtomic } from "./private-path.js";

/**
 * Files only the user may read (OAuth tokens, project approvals, catalog caches): 0600, in a folder of
 * the user's that others cannot write (created 0700; an existing folder is checked, never chmod-ed).
 * A file that is a symbolic link or belongs to another user is never read or written through: another
 * user or program could point it at a file it controls or wants clobbered.
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

/** The file's text; undefined when it is absent, unreadable, a symbolic link or another user's (refused). */
export function readPrivateFile(file: string): string | undefined {
  if (!isRegularOrAbsent(file)) return undefined;
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
    // Our own file with loose permissions (written by an older version or by hand): ours to tighten.
    if (!isWindows && (stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    return readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `text` atomically, 0600, creating its folder 0700 when missing. Refuses (throws
 * UNSAFE_PATH) a link at `file` and a folder that is a link, another user's or writable by others.
 */
export function writePrivateFile(file: string, text: string, what: string): void {
  ensurePrivateDir(dirname(file), { what: `${what} folder` });
  replaceFileAtomic(file, text, { what: `${what} file`, private: true });
}

/**
 * A file of secrets the user wrote and we only read (shared keys): its text, or why it is refused. It
 * must be a regular file (not a link), ours, and readable by nobody else; unlike `readPrivateFile`, loose
 * permissions are refused rather than tightened, since a key others could read is already spent.
 */
export function readSecretFile(file: string): { ok: true; text: string } | { ok: false; problem: string } {
  if (!isRegularOrAbsent(file)) return { ok: false, problem: "it is a symbolic link or not a regular file" };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    return {
      ok: false,
      problem: `it cannot be opened (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, problem: "it is not a regular file" };
    const uid = process.getuid?.();
    if (!isWindows && uid !== undefined && stat.uid !== uid) {
      return { ok: false, problem: `it is owned by uid ${stat.uid}, not by this user (uid ${uid})` };
    }
    if (!isWindows && (stat.mode & 0o077) !== 0) {
      return {
        ok: false,
        problem: `its mode ${(stat.mode & 0o777).toString(8)} lets others read or change it (chmod 600 it)`,
      };
    }
    return { ok: true, text: readFileSync(fd, "utf8") };
  } finally {
    closeSync(fd);
  }
}
