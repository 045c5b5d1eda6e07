import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { lockTimeout } from "../errors/index.js";
import { NO_FOLLOW, withNoFollowRead } from "./no-follow-read.js";

/**
 * An advisory lock for read-modify-write of a file shared by several processes (config edits, stores):
 * the lock is a file `${path}.lock` created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, 0600) that holds
 * the holder's pid, host, start time and a random token. Only processes that take the lock are held
 * off; readers that do not lock still see whole files because writers replace files atomically.
 */

export interface FileLockOptions {
  /** How long to wait for another holder (default 10 s). */
  timeoutMs?: number;
  /** A lock whose file was not touched for this long is abandoned and taken over (default 30 s). */
  staleMs?: number;
}

/** FileLockOptions' defaults. */
const LOCK_DEFAULTS = { timeoutMs: 10_000, staleMs: 30_000 } as const;

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
}

const thisHost = hostname();

/**
 * Runs fn while holding an advisory lock on `path` (lock file `${path}.lock`). Waits with bounded backoff
 * up to timeoutMs, takes over a stale lock (holder pid gone on this host, or not touched for staleMs),
 * and always releases its own lock file, never another's. The lock is not reentrant: a nested
 * withFileLock on the same path in the same process waits for itself until timeoutMs.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? LOCK_DEFAULTS.staleMs;
  const lockFile = `${path}.lock`;
  const attempt = attempts(lockFile, options);
  for (;;) {
    const step = attempt.next();
    if (step.done) break;
    await new Promise((resolve) => setTimeout(resolve, step.value));
  }
  const token = attempt.token;
  // A long fn keeps its lock fresh, so age alone never hands a live holder's lock to a waiter.
  const refresh = setInterval(() => touch(lockFile), Math.max(50, Math.floor(staleMs / 3)));
  refresh.unref();
  try {
    return await fn();
  } finally {
    clearInterval(refresh);
    release(lockFile, token);
  }
}

/**
 * withFileLock for synchronous read-modify-write (the trust and token stores, whose callers are
 * synchronous): the same lock file and protocol, waiting by blocking the thread between attempts.
 * For short critical sections only; fn must not wait for the event loop.
 */
export function withFileLockSync<T>(path: string, fn: () => T, options: FileLockOptions = {}): T {
  const lockFile = `${path}.lock`;
  const attempt = attempts(lockFile, options);
  for (;;) {
    const step = attempt.next();
    if (step.done) break;
    pause(step.value);
  }
  try {
    return fn();
  } finally {
    release(lockFile, attempt.token);
  }
}

interface Attempts {
  readonly token: string;
  /** Yields how long to wait before the next try; done once the lock is ours. Throws LOCK_TIMEOUT. */
  next(): IteratorResult<number, void>;
}

/** The acquire loop, shared by the async and the sync lock: create, else take over a stale lock, else wait. */
function attempts(lockFile: string, options: FileLockOptions): Attempts {
  const timeoutMs = options.timeoutMs ?? LOCK_DEFAULTS.timeoutMs;
  const staleMs = options.staleMs ?? LOCK_DEFAULTS.staleMs;
  const token = randomBytes(12).toString("hex");
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  return {
    token,
    next() {
      for (;;) {
        if (tryCreate(lockFile, token)) return { done: true, value: undefined };
        const seen = inspect(lockFile);
        if (seen === undefined) continue; // released in the meantime
        if (isStale(seen, staleMs) && takeOver(lockFile, seen)) continue;
        if (Date.now() >= deadline) {
          const holder =
            seen.holder === undefined
              ? "another process"
              : `process ${seen.holder.pid} on ${seen.holder.host}`;
          throw lockTimeout({ path: lockFile.slice(0, -5), timeoutMs, holder });
        }
        // Bounded backoff with jitter, so many waiters do not retry in step.
        const wait = Math.min(delay, Math.max(1, deadline - Date.now()));
        delay = Math.min(delay * 2, 250);
        return { done: false, value: wait * (0.5 + Math.random() / 2) };
      }
    },
  };
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Creates the lock file with our holder record; false when it exists. */
function tryCreate(lockFile: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockFile, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(
      fd,
      `${JSON.stringify({ pid: process.pid, host: thisHost, token, time: new Date().toISOString() })}\n`,
    );
  } finally {
    closeSync(fd);
  }
  return true;
}

interface Seen {
  /** Identity of the lock file we looked at: a takeover must remove exactly this file. */
  readonly dev: number;
  readonly ino: number;
  readonly mtimeMs: number;
  /** Undefined while the holder is still writing it, or when it is not a lock file of ours. */
  readonly holder?: Holder;
}

function inspect(lockFile: string): Seen | undefined {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(lockFile);
  } catch {
    return undefined;
  }
  const seen = { dev: stat.dev, ino: stat.ino, mtimeMs: stat.mtimeMs };
  if (!stat.isFile()) return seen;
  const holder = readHolder(lockFile);
  return holder === undefined ? seen : { ...seen, holder };
}

function readHolder(file: string): Holder | undefined {
  return withNoFollowRead(file, (fd) => {
    try {
      const buffer = Buffer.alloc(Math.min(4096, fstatSync(fd).size));
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      const parsed = JSON.parse(buffer.subarray(0, read).toString("utf8")) as Partial<Holder>;
      if (
        typeof parsed.pid !== "number" ||
        typeof parsed.host !== "string" ||
        typeof parsed.token !== "string"
      )
        return undefined;
      return { pid: parsed.pid, host: parsed.host, token: parsed.token };
    } catch {
      return undefined;
    }
  });
}

function isStale(seen: Seen, staleMs: number): boolean {
  if (Date.now() - seen.mtimeMs > staleMs) return true;
  const holder = seen.holder;
  return holder !== undefined && holder.host === thisHost && !processAlive(holder.pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the stale lock file `seen`, and only it. Two waiters may judge the same lock stale; each moves
 * the lock file aside to a name of its own (rename is atomic, so only one of them gets the stale file),
 * then checks it moved the very file it judged. A waiter that moved a newer lock (taken by the other
 * waiter meanwhile) links it back at once; the lock name is never free for another waiter while a
 * holder runs, except in that microsecond.
 */
function takeOver(lockFile: string, seen: Seen): boolean {
  const aside = `${lockFile}.stale-${randomBytes(6).toString("hex")}`;
  try {
    renameSync(lockFile, aside);
  } catch (error) {
    // ENOENT: released or taken over by another waiter, try again at once. Anything else (a foreign
    // lock in a sticky folder, a read-only folder): wait for it like for a live holder.
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  const moved = inspect(aside);
  // Same inode number alone is not enough: a fresh lock file may reuse the stale one's inode.
  const same =
    moved !== undefined &&
    moved.dev === seen.dev &&
    moved.ino === seen.ino &&
    moved.mtimeMs === seen.mtimeMs &&
    moved.holder?.token === seen.holder?.token;
  if (moved !== undefined && !same) {
    try {
      linkSync(aside, lockFile);
    } catch {
      // A third process took the free name in that instant; nothing left to restore.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already removed
  }
  return true;
}

function touch(lockFile: string): void {
  try {
    const now = new Date();
    utimesSync(lockFile, now, now);
  } catch {
    // released or taken over; the release below checks the token
  }
}

/** Removes the lock file if it is still ours (same token): a lock taken over meanwhile is not ours to remove. */
function release(lockFile: string, token: string): void {
  if (readHolder(lockFile)?.token !== token) return;
  try {
    unlinkSync(lockFile);
  } catch {
    // already gone
  }
}
