/**
 * A server must die with its host even when the host gets SIGKILL: its stdin then reaches EOF, but a
 * server may ignore that, and its children (`npx` wrappers, workers) never see it. Exit hooks do not run
 * on SIGKILL, and Linux's parent-death signal (prctl PR_SET_PDEATHSIG) is out of Node's reach without a
 * native addon. So on POSIX a host runs one watchdog: a small Node process it starts at its first stdio
 * spawn (alongside that spawn, never before it) and holds by a pipe, the watchdog's stdin. Each server is
 * spawned directly by the host as the leader of its own process group, and its pgid is written into
 * that pipe ("+PGID TAG"); once the group is gone the host writes "-PGID". The kernel closes the pipe
 * whenever the host dies, however it dies; on EOF the watchdog sends SIGTERM to every group it holds
 * and to the processes carrying each group's tree tag (descendants that started a session of their
 * own, so no longer in the group: tree-tag.ts), then SIGKILL after a grace period, and exits. Linux and macOS alike; Windows has no process groups:
 * there servers must exit on stdin EOF (a Job Object would be the equivalent and needs native code).
 *
 * Why one watchdog and not a supervisor per server: a Node process per server cost ~6 MiB of private
 * memory each and its boot (~80 ms) came before the server's. The watchdog boots while the first server
 * does, and what the host writes before it has booted waits in the pipe: a host killed at that moment
 * still has its servers ended, once the watchdog is up.
 *
 * The window: between the spawn of a server (fork and exec, inside the synchronous `spawn()`) and the
 * write of its pgid, the same synchronous turn of the host's event loop. Registering before exec is
 * impossible from Node (no hook runs in the child between fork and exec). A host killed inside that
 * window (microseconds; on the host's first spawn also the watchdog's own `spawn()`) leaves that one
 * server to its stdin EOF, which every SDK-based server honours.
 *
 * Never a group that is no longer ours: the watchdog only signals groups it was told about and not told
 * gone, and the host says "gone" only once no process of the group is left (process-tree.ts). A pgid
 * cannot be reused while any process of the group lives (the kernel keeps the number while it is in
 * use); for the short time between the group's end and the host's "-PGID" (or a host that dies then),
 * the watchdog also remembers the leader's start time (Linux) and leaves alone a pgid whose leader is
 * now another process.
 *
 * Not in the host's way: the watchdog is unref'd (it never keeps the host's event loop alive), detached
 * (its own session: a Ctrl-C at the host's terminal reaches the host, not the watchdog, and a host that
 * survives its Ctrl-C keeps its guard), ignores SIGINT and SIGHUP, and runs with an empty environment.
 * If it dies while the host lives (someone killed it), the host starts another and registers every
 * live group again.
 */

import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { PROCESS_STOP } from "../config/defaults.js";

/** CommonJS, run with `node -e`: it needs no file on disk, whether the library runs from src or dist. */
const SCRIPT = String.raw`"use strict";
const { readdirSync, readFileSync } = require("node:fs");
const graceMs = Number(process.argv[1]) || 1000;
for (const signal of ["SIGINT", "SIGHUP"]) process.on(signal, () => {});
// pgid -> { started: the leader's start time when registered ("" where /proc has none), tag }.
const groups = new Map();
const startTime = (pid) => {
  try {
    const stat = readFileSync("/proc/" + pid + "/stat", "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] || "";
  } catch {
    return "";
  }
};
// The running processes whose environment carries MCP_BRIDGE_TREE=<tag> (tree-tag.ts): a server's
// descendants that left its group for a session of their own.
const tagged = (tag) => {
  const found = [];
  if (!tag) return found;
  const needle = Buffer.from("MCP_BRIDGE_TREE=" + tag + "\0");
  let entries = [];
  try {
    entries = readdirSync("/proc");
  } catch {}
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync("/proc/" + entry + "/environ");
      let at = environ.indexOf(needle);
      while (at > 0 && environ[at - 1] !== 0) at = environ.indexOf(needle, at + 1);
      if (at === -1) continue;
      const stat = readFileSync("/proc/" + entry + "/stat", "utf8");
      const state = stat[stat.lastIndexOf(")") + 2];
      if (state !== "Z" && state !== "X") found.push(Number(entry));
    } catch {}
  }
  return found;
};
// Signals every group still ours and its tagged processes; forgets a group of which nothing is left. A
// pgid whose leader is now another process is no longer signalled (its tagged processes still are).
const signalAll = (signal) => {
  for (const [pgid, group] of groups) {
    let reached = false;
    const now = group.started ? startTime(pgid) : "";
    if (now && now !== group.started) group.started = "reused";
    else if (group.started !== "reused") {
      try {
        process.kill(-pgid, signal);
        reached = true;
      } catch {}
    }
    for (const pid of tagged(group.tag)) {
      try {
        process.kill(pid, signal);
        reached = true;
      } catch {}
    }
    if (!reached) groups.delete(pgid);
  }
};
let stopping = false;
const hostGone = () => {
  if (stopping) return;
  stopping = true;
  signalAll("SIGTERM");
  if (groups.size === 0) process.exit(0);
  const deadline = Date.now() + graceMs;
  const check = setInterval(() => {
    signalAll(0);
    if (groups.size > 0 && Date.now() < deadline) return;
    clearInterval(check);
    signalAll("SIGKILL");
    process.exit(0);
  }, 50);
};
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  input += text;
  for (let newline = input.indexOf("\n"); newline !== -1; newline = input.indexOf("\n")) {
    const [head, tag = ""] = input.slice(0, newline).split(" ");
    input = input.slice(newline + 1);
    const pgid = Number(head.slice(1));
    if (!Number.isSafeInteger(pgid) || pgid <= 1 || !/^[0-9a-f]*$/.test(tag)) continue;
    if (head[0] === "+") groups.set(pgid, { started: startTime(pgid), tag });
    else if (head[0] === "-") groups.delete(pgid);
  }
});
process.stdin.on("end", hostGone);
process.stdin.on("close", hostGone);
process.stdin.on("error", hostGone);
`;

/** Arguments for `process.execPath` that start the watchdog. */
export function watchdogArgs(graceMs: number): string[] {
  // A small heap and no V8 worker threads: the watchdog only waits (about 7 MiB private memory; the
  // rest of its RSS is the node binary, shared with the host).
  return ["--max-old-space-size=16", "--v8-pool-size=0", "-e", SCRIPT, String(graceMs)];
}

interface Running {
  readonly child: ChildProcess;
  readonly pipe: Socket;
  readonly startedAt: number;
}

/** This host's live server groups as the watchdog is told them: pgid -> tree tag ("" for none). */
const watched = new Map<number, string>();
let running: Running | undefined;

/** A watchdog that lived at least this long is replaced when it dies; one that dies at once is not. */
const RESTART_AFTER_MS = 1000;

function startWatchdog(): Running {
  const child = spawn(process.execPath, watchdogArgs(PROCESS_STOP.termGraceMs), {
    // No environment of its own: NODE_OPTIONS and the like are meant for the servers.
    env: {},
    stdio: ["pipe", "ignore", "ignore"],
    shell: false,
    detached: true,
    windowsHide: true,
  });
  const pipe = child.stdin as Socket;
  // Neither the process nor its pipe may keep the host's event loop alive.
  child.unref();
  pipe.unref();
  pipe.on("error", () => {});
  const dog: Running = { child, pipe, startedAt: Date.now() };
  const gone = () => {
    if (running !== dog) return;
    running = undefined;
    if (watched.size > 0 && Date.now() - dog.startedAt >= RESTART_AFTER_MS) {
      running = startWatchdog();
      write(running, [...watched].map(([pgid, tag]) => registration(pgid, tag)).join(""));
    }
  };
  child.once("exit", gone);
  child.once("error", gone);
  return dog;
}

function write(dog: Running, text: string): void {
  if (!dog.pipe.destroyed) dog.pipe.write(text);
}

/**
 * Puts a server's process group under the host's watchdog, started now if there is none (POSIX only:
 * see process-tree.ts). Call it in the same synchronous turn as the spawn (see the window above).
 */
export function watchGroup(pgid: number, tag = ""): void {
  if (watched.has(pgid)) return;
  watched.set(pgid, tag);
  running ??= startWatchdog();
  write(running, registration(pgid, tag));
}

/** "+PGID" or "+PGID TAG": the group and, on Linux, the tag of its tree (tree-tag.ts). */
const registration = (pgid: number, tag: string) => (tag ? `+${pgid} ${tag}\n` : `+${pgid}\n`);

/** The group is gone (no process of it is left): the watchdog must never signal that pgid again. */
export function unwatchGroup(pgid: number): void {
  if (!watched.delete(pgid)) return;
  if (running) write(running, `-${pgid}\n`);
}
