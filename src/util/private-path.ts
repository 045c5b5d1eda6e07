import { randomBytes } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { McpBridgeError } from "../errors/error-classes.js";
import { unsafePath } from "../errors/file-errors.js";

/**
 * The one way mcp-bridge creates folders and writes files it keeps (config edits, stores, caches,
 * overflow files, the daemon's folder). Folders: created 0700, and a folder that already exists is
 * used only when it is a real directory of ours that others cannot write; it is never chmod-ed, since
 * its permissions are its owner's choice (a setgid team folder, /tmp). Files: created exclusively
 * without following links, or replaced atomically through a temporary file of an unpredictable name.
 */

// Windows has no O_NOFOLLOW, no uids and no mode bits worth checking; lstat still refuses links there.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const isWindows = process.platform === "win32";

function myUid(): number | undefined {
  return isWindows || typeof process.getuid !== "function" ? undefined : process.getuid();
}

function unsafe(path: string, what: string, problem: string): McpBridgeError {
  return unsafePath({ path, what, problem });
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Why an existing folder is not a private folder of ours, or undefined when it is. */
function folderProblem(stat: Stats, strict: boolean): string | undefined {
  if (stat.isSymbolicLink()) return "it is a symbolic link";
  if (!stat.isDirectory()) return "it is not a folder";
  const uid = myUid();
  if (uid === undefined) return undefined;
  if (stat.uid !== uid) return `it is owned by uid ${stat.uid}, not by this user (uid ${uid})`;
  // Group write is a hole only for a group other than the user's own: a user whose umask is 002
  // (a private group per user, as Debian and Ubuntu set up) makes 0775 folders of their own.
  const groupWrite = (stat.mode & 0o020) !== 0 && stat.gid !== process.getgid?.();
  const open = strict ? (stat.mode & 0o077) !== 0 : (stat.mode & 0o002) !== 0 || groupWrite;
  if (open)
    return `its mode ${(stat.mode & 0o7777).toString(8)} lets others ${strict ? "in" : "write to it"}`;
  return undefined;
}

export interface PrivateDirOptions {
  /** What the folder is for, in error messages ("catalog cache"). */
  readonly what: string;
  /** Require no access at all for group and others (a socket folder), not just no write access. */
  readonly strict?: boolean;
}

/**
 * Creates `dir` 0700 (with its parents) when missing, or checks the existing one: a real directory
 * (not a link), owned by this user, not writable by others. Never changes an existing folder's mode.
 * Throws UNSAFE_PATH otherwise. Returns `dir`.
 */
export function ensurePrivateDir(dir: string, options: PrivateDirOptions): string {
  let stat = lstatOrUndefined(dir);
  if (stat === undefined) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Checked again: another user may have created it between our look and our mkdir.
    stat = lstatSync(dir);
  }
  const problem = folderProblem(stat, options.strict ?? false);
  if (problem !== undefined) throw unsafe(dir, options.what, problem);
  return dir;
}

/**
 * Why ensurePrivateDir would refuse `dir`, or could not create it, without creating anything (for a
 * check such as `config validate`); undefined when it would work.
 */
export function privateDirProblem(
  dir: string,
  options: { readonly strict?: boolean } = {},
): string | undefined {
  try {
    const stat = lstatOrUndefined(dir);
    if (stat !== undefined) return folderProblem(stat, options.strict ?? false);
    // Missing: it is made 0700 on first use, when its nearest existing parent lets us.
    let parent = dirname(dir);
    while (lstatOrUndefined(parent) === undefined && parent !== dirname(parent)) parent = dirname(parent);
    accessSync(parent, constants.W_OK);
    return undefined;
  } catch (error) {
    return `it cannot be made or checked (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

/** Whether an existing folder is shared with others: sticky (like /tmp) or writable by group or others. */
function isSharedFolder(stat: Stats): boolean {
  return stat.isDirectory() && !stat.isSymbolicLink() && (stat.mode & (0o1000 | 0o022)) !== 0;
}

/**
 * The folder to keep our files in when the user names `dir`: `dir` itself, or, when `dir` is a shared
 * folder (1777 like /tmp, a group-writable team folder), a per-user subfolder `mcp-bridge-<uid>` in it,
 * so the shared folder is left exactly as it is. Nothing is created (see ensurePrivateDir).
 */
export function userDirIn(dir: string): string {
  const uid = myUid();
  if (uid === undefined) return dir;
  let stat: Stats | undefined;
  try {
    stat = lstatSync(dir);
  } catch {
    return dir;
  }
  return isSharedFolder(stat) ? join(dir, `mcp-bridge-${uid}`) : dir;
}

/** Writes `data` to a new file, created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) with `mode`; EEXIST when taken. */
export function writeFileExclusive(file: string, data: string | Uint8Array, mode = 0o600): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, mode);
  try {
    writeFileSync(fd, data);
  } catch (error) {
    closeSync(fd);
    rmSync(file, { force: true });
    throw error;
  }
  closeSync(fd);
}

export interface ReplaceOptions {
  /** Mode of a file that does not exist yet (default 0600); an existing file keeps its own. */
  readonly mode?: number;
  /** What the file is, in error messages ("config"). */
  readonly what?: string;
  /**
   * A file of secrets (tokens, approvals): a link at `target` is refused instead of written through,
   * and the new file is ours and 0600 whatever the old one was.
   */
  readonly private?: boolean;
}

/**
 * The file a write to `target` must replace: `target` itself, or the real file a symbolic link at
 * `target` points to (a config kept in a dotfiles repository stays a link). A dangling link is
 * refused: writing would create a file wherever the link points.
 */
export function replaceableFile(target: string, options: ReplaceOptions = {}): string {
  const stat = lstatOrUndefined(target);
  if (stat === undefined || stat.isFile()) return target;
  const what = options.what ?? "file";
  if (!stat.isSymbolicLink()) throw unsafe(target, what, "it is not a regular file");
  if (options.private) throw unsafe(target, what, "it is a symbolic link");
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    throw unsafe(target, what, "it is a symbolic link to nothing");
  }
  if (!lstatSync(real).isFile())
    throw unsafe(target, what, `it links to ${real}, which is not a regular file`);
  return real;
}

/**
 * Replaces `target` with `data` atomically: a temporary file of an unpredictable name is created
 * exclusively in the same folder, given the existing file's mode (and its owner and group where this
 * user may set them), written, flushed to disk and renamed over the file. A symbolic link at `target`
 * is written through (see replaceableFile). A reader sees the old or the new file, never a mix; a
 * crash leaves the old one. Use with withFileLock for read-modify-write. Returns the file replaced.
 */
export function replaceFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: ReplaceOptions = {},
): string {
  const file = replaceableFile(target, options);
  const existing = lstatOrUndefined(file);
  const temporary = join(
    dirname(file),
    `.${basename(file).slice(0, 60)}.${randomBytes(8).toString("hex")}.tmp`,
  );
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
    0o600,
  );
  try {
    if (isWindows || options.private) {
      // created 0600 above
    } else if (existing !== undefined) {
      keepOwner(fd, existing);
      fchmodSync(fd, existing.mode & 0o777);
    } else if (options.mode !== undefined) fchmodSync(fd, options.mode);
    writeFileSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, file);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(dirname(file));
  return file;
}

/** Gives the new file the old one's owner and group; without the right to (not root, not our group), keeps ours. */
function keepOwner(fd: number, existing: Stats): void {
  const mine = fstatSync(fd);
  if (mine.uid === existing.uid && mine.gid === existing.gid) return;
  try {
    fchownSync(fd, existing.uid, existing.gid);
  } catch {
    try {
      fchownSync(fd, mine.uid, existing.gid);
    } catch {
      // Neither: the file becomes ours, with our group (as any editor's save would make it).
    }
  }
}

/** Flushes a rename to disk; a folder that cannot be opened (Windows) is left to the system. */
function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
