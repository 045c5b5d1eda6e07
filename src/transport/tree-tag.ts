import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/**
 * A process group does not hold a server's whole tree: a descendant that calls setsid() (Node's
 * `detached: true`, a daemonizing wrapper, `setsid cmd`) leaves the group and the session, and once its
 * parent is gone it is re-parented to init, so no parent link leads to it either. Linux has no way to
 * hold it from Node (PR_SET_CHILD_SUBREAPER and cgroups need native code or privileges). What it does
 * keep is the environment it was started with: every server is spawned with `MCP_BRIDGE_TREE=<tag>`, a
 * random tag per spawn, which every descendant inherits unless it deliberately builds an environment
 * without it. /proc/<pid>/environ shows a process's initial environment to its own user, so the
 * processes carrying a tag are found by a walk of /proc (Linux only; elsewhere a tag finds nothing and
 * the process group is all there is).
 *
 * A tag is never reused and a process cannot gain one after exec, so signalling the processes that carry
 * it never reaches a process that is not of the tree (a pid reused by another program has its own
 * environment). What escapes: a descendant that drops the variable from its environment and also
 * leaves the group (documented in docs/processes.md).
 */
export const TREE_TAG_VARIABLE = "MCP_BRIDGE_TREE";

const scansProc = process.platform === "linux";

/** A fresh tag for one server spawn; "" where no walk of /proc could find it (not Linux). */
export function newTreeTag(): string {
  return scansProc ? randomBytes(12).toString("hex") : "";
}

/** The pids of every running (not zombie) process whose environment carries the tag, ours excluded. */
export function taggedProcesses(tag: string): number[] {
  if (!scansProc) return [];
  const needle = Buffer.from(`${TREE_TAG_VARIABLE}=${tag}\0`);
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      if (!carries(environ, needle)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && state !== "X") found.push(Number(entry));
    } catch {
      // gone, or another user's (its environ is not readable): not ours either way
    }
  }
  return found;
}

/** Whether a NUL-separated environment holds the entry (at its start or after a NUL). */
function carries(environ: Buffer, needle: Buffer): boolean {
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1))
    if (at === 0 || environ[at - 1] === 0) return true;
  return false;
}
