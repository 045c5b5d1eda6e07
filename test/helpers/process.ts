import { readFileSync } from "node:fs";

/**
 * Whether a process still runs: a zombie (exited, waiting to be reaped by init, which in containers can
 * take seconds) does not count, since it holds no resources and runs no code.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Pids written by the spawns-child fixture (PIDS_FILE): the server and its own child. */
export function pidsIn(file: string): number[] {
  try {
    const { pid, childPid } = JSON.parse(readFileSync(file, "utf8")) as { pid: number; childPid: number };
    return [pid, childPid];
  } catch {
    return [];
  }
}
