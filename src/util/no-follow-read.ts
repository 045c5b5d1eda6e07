import { closeSync, constants, openSync } from "node:fs";

/**
 * Reading a file of ours without following a symbolic link planted at its path (another user or
 * program could point it at a file it controls). Windows has no O_NOFOLLOW: there callers check with
 * lstat first where it matters.
 */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Opens `file` read-only, not through a link, and gives the descriptor to `read`, closing it after
 * (whatever `read` returns or throws); undefined when the file cannot be opened (absent, a link,
 * unreadable).
 */
export function withNoFollowRead<T>(file: string, read: (fd: number) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
}
