import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { taggedProcesses } from "./tree-tag.js";
import { unwatchGroup, watchGroup } from "./watchdog.js";

/**
 * Servers started through `npx`, `uvx` or a shell wrapper have children of their own, which outlive the
 * top process when only it is signalled. Every stdio server is therefore spawned as the leader of its
 * own process group (POSIX), and stopping it signals the whole group, together with the descendants
 * that left the group for a session of their own, found by the tree tag in their environment (Linux,
 * see tree-tag.ts).
 */
export const useProcessGroups = process.platform !== "win32";

/** pgid -> the tree tag its server was spawned with ("" for none). */
const liveGroups = new Map<number, string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when the host exits without closing the bridge: nothing of ours may survive it.
  process.once("exit", () => {
    for (const pgid of liveGroups.keys()) signalGroup(pgid, "SIGKILL");
  });
}

/**
 * Tracks a server's group until it is reaped; `watch` also puts it under the host's watchdog, which
 * ends it if the host dies without running its exit hook (SIGKILL; see watchdog.ts).
 */
export function trackGroup(pgid: number, watch: boolean, tag = ""): void {
  if (!useProcessGroups) return;
  liveGroups.set(pgid, tag);
  installExitHook();
  if (watch) watchGroup(pgid, tag);
}

/** No process of the group is left: nothing may signal that pgid any more. */
export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
  unwatchGroup(pgid);
}

/**
 * Sends a signal to every process of the group and to the tree's processes that left it (its tag); false
 * when no process of either is left.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  let reached = false;
  try {
    process.kill(useProcessGroups ? -pgid : pgid, signal);
    reached = true;
  } catch {
    // the group is empty
  }
  const tag = liveGroups.get(pgid);
  for (const pid of tag ? taggedProcesses(tag) : []) {
    try {
      process.kill(pid, signal);
      reached = true;
    } catch {
      // gone meanwhile
    }
  }
  return reached;
}

/**
 * Whether any process of the group still runs. kill(-pgid, 0) also counts zombies, and a server's
 * children that died with it are zombies until the machine's init reaps them, which in containers can
 * take seconds; on Linux /proc tells the living from the dead.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== "linux") return true;
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
    }
    const tag = liveGroups.get(pgid);
    return tag ? taggedProcesses(tag).length > 0 : false;
  } catch {
    return true;
  }
}

// Not unref'd: a host awaiting close() must not see its event loop drain before the processes are gone.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(20);
  }
  return condition();
}

export interface StopOptions {
  /** Time the server gets to exit on its own after stdin closes. */
  readonly stdinGraceMs: number;
  /** Time after SIGTERM before SIGKILL. */
  readonly termGraceMs: number;
}

/**
 * Stops a server in stages (close stdin, SIGTERM, SIGKILL), then makes sure no process of its group is
 * left, even children that ignored the leader's exit.
 */
export async function stopProcessTree(child: ChildProcess, options: StopOptions): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  try {
    child.stdin?.end();
  } catch {
    // already closed
  }
  if (!exited()) await waitUntil(exited, options.stdinGraceMs);
  if (!exited()) {
    signalGroup(pid, "SIGTERM");
    await waitUntil(exited, options.termGraceMs);
  }
  if (!exited()) {
    signalGroup(pid, "SIGKILL");
    await waitUntil(exited, options.termGraceMs);
  }
  await reapGroup(pid, options.termGraceMs);
}

/** Ends whatever is left of a group whose leader is gone (orphaned children). */
export async function reapGroup(pgid: number, graceMs: number): Promise<void> {
  if (!useProcessGroups) {
    untrackGroup(pgid);
    return;
  }
  if (groupAlive(pgid)) {
    signalGroup(pgid, "SIGTERM");
    if (!(await waitUntil(() => !groupAlive(pgid), graceMs))) {
      signalGroup(pgid, "SIGKILL");
      await waitUntil(() => !groupAlive(pgid), graceMs);
    }
  }
  untrackGroup(pgid);
}
