import { fchmodSync, fstatSync, lstatSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { withNoFollowRead } from "./no-follow-read.js";
import { ensurePrivateDir, replaceFileAtomic } from "./private-path.js";

/**
 * Files only the user may read (OAuth tokens, project approvals, catalog caches): 0600, in a folder of
 * the user's that others cannot write (created 0700; an existing folder is checked, never chmod-ed).
 * A file that is a symbolic link or belongs to another user is never read or written through: another
 * user or program could point it at a file it controls or wants clobbered.
 */

// Windows has no O_NOFOLLOW; there the lstat check before opening is what refuses a link.
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
  return withNoFollowRead(file, (fd) => {
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
    }
  });
}

/**
 * Replaces `file` with `text` atomically, 0600, creating its folder 0700 when missing. Refuses (throws
 * UNSAFE_PATH) a link at `file` and a folder that is a link, another user's or writable by others.
 */
export function writePrivateFile(file: string, text: string, what: string): void {
  ensurePrivateDir(dirname(file), { what: `${what} folder` });
  replaceFileAtomic(file, text, { what: `${what} file`, private: true });
}
