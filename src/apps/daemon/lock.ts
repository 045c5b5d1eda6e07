import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { daemonLockChurn } from "../../errors/daemon-errors.js";

/** Whether a process with this pid exists (EPERM: it exists but is not ours). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The pid in a pid file; undefined when there is none or it stays empty (a writer that died mid-write). */
export function readPid(file: string): number | undefined {
  for (let attempt = 0; attempt < 5; attempt++) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
    const pid = Number.parseInt(text, 10);
    if (Number.isSafeInteger(pid) && pid > 0) return pid;
    // Created but not yet written by a daemon that is starting right now.
    pause(20);
  }
  return undefined;
}

export type LockResult = { readonly acquired: true } | { readonly acquired: false; readonly pid: number };

/**
 * Takes the daemon's pid file: created exclusively (`wx`), so of two daemons starting at once only one
 * gets it. A pid file whose process is gone is stale and replaced. After writing, the file is read back
 * a moment later: two processes replacing the same stale file both "succeed", and only the one whose
 * pid stayed in the file keeps the lock.
 */
export function acquirePidLock(file: string, pid = process.pid): LockResult {
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      writeFileSync(file, `${pid}\n`, { flag: "wx", mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = readPid(file);
      if (owner !== undefined && owner !== pid && processAlive(owner)) return { acquired: false, pid: owner };
      try {
        unlinkSync(file);
      } catch {
        // removed by another starter: try again
      }
      continue;
    }
    pause(50);
    const owner = readPid(file);
    if (owner === pid) return { acquired: true };
    if (owner !== undefined && processAlive(owner)) return { acquired: false, pid: owner };
  }
  throw daemonLockChurn({ file });
}

/** Removes the pid file if it is still ours. */
export function releasePidLock(file: string, pid = process.pid): void {
  if (readPid(file) !== pid) return;
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
