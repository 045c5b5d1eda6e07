/**
 * A server must die with its host even when the host gets SIGKILL: its stdin then reaches EOF, but a
 * server may ignore that, and its children (`npx` wrappers, workers) never see it. Exit hooks do not run
 * on SIGKILL, and Linux's parent-death signal (prctl PR_SET_PDEATHSIG) is out of Node's reach without
 * a native addon. So on POSIX every stdio server runs under a tiny supervisor: a Node process that
 * leads the server's process group (the host spawns it detached), starts the server inside that group
 * with the host's stdio pipes passed straight through (it relays nothing), and holds one more pipe
 * from the host (fd 3). The kernel closes that pipe whenever the host dies, however it dies; on EOF the
 * supervisor sends SIGTERM to the whole group, then SIGKILL after a grace period. This holds on Linux
 * and macOS alike. Windows has no process groups: there servers are spawned directly and must exit on
 * stdin EOF (a Job Object would be the equivalent and needs native code).
 *
 * The control pipe also carries the server's spec (command, args, env, cwd: never on the supervisor's
 * argv or environment) and the spawn outcome back (the server's pid, or the spawn error's code so
 * ENOENT still reads as "command not found"). The supervisor mirrors the server's exit code or signal.
 * No shell anywhere: the supervisor is `process.execPath -e <script>` and spawns with shell: false.
 */

import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { useProcessGroups } from "./process-tree.js";

/** What is spawned for a server: the program, its arguments, its whole environment, its folder. */
export interface SpawnSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
}

export interface SupervisedSpec extends SpawnSpec {
  /** After the host is gone: time between SIGTERM and SIGKILL of the group. */
  readonly graceMs: number;
}

export type SupervisorReport =
  | { readonly pid: number }
  | { readonly error: { readonly code?: string; readonly message: string } };

/** CommonJS, run with `node -e`: it needs no file on disk, whether the library runs from src or dist. */
const SCRIPT = String.raw`"use strict";
const { spawn } = require("node:child_process");
const { Socket } = require("node:net");
const control = new Socket({ fd: 3, readable: true, writable: true });
const signals = ["SIGTERM", "SIGINT", "SIGHUP"];
// Signals sent to the group are for the server; the supervisor follows the server's exit instead.
for (const signal of signals) process.on(signal, () => {});
let spec;
let input = "";
let stopping = false;
const killGroup = (signal) => {
  try {
    process.kill(-process.pid, signal);
  } catch {}
};
const hostGone = () => {
  if (stopping) return;
  stopping = true;
  killGroup("SIGTERM");
  setTimeout(() => killGroup("SIGKILL"), spec ? spec.graceMs : 0);
};
control.on("end", hostGone);
control.on("close", hostGone);
control.on("error", hostGone);
control.on("data", (data) => {
  if (spec) return;
  input += data;
  const newline = input.indexOf("\n");
  if (newline === -1) return;
  spec = JSON.parse(input.slice(0, newline));
  const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: "inherit", shell: false });
  child.once("spawn", () => control.write(JSON.stringify({ pid: child.pid }) + "\n"));
  child.once("error", (error) => {
    if (child.pid !== undefined) return;
    const report = { error: { code: error.code, message: error.message } };
    control.end(JSON.stringify(report) + "\n", () => process.exit(127));
  });
  child.once("exit", (code, signal) => {
    // Once the host is gone the grace timer ends the whole group, this process included.
    if (stopping) return;
    for (const name of signals) process.removeAllListeners(name);
    if (signal) process.kill(process.pid, signal);
    process.exit(code === null ? 1 : code);
  });
});
`;

/** Arguments for `process.execPath` that start the supervisor. */
export function supervisorArgs(): string[] {
  // A small heap and no V8 worker threads: the supervisor only waits (about 7 MiB private memory; the
  // rest of its RSS is the node binary, shared). The server it starts is not affected by these flags.
  return ["--max-old-space-size=16", "--v8-pool-size=0", "-e", SCRIPT];
}

export function encodeSpec(spec: SupervisedSpec): string {
  return `${JSON.stringify(spec)}\n`;
}

/** Parses the supervisor's one-line report; undefined for anything else. */
export function parseReport(line: string): SupervisorReport | undefined {
  try {
    const report = JSON.parse(line) as Partial<{
      pid: unknown;
      error: { code?: unknown; message?: unknown };
    }>;
    if (typeof report.pid === "number") return { pid: report.pid };
    if (report.error && typeof report.error.message === "string") {
      return {
        error: {
          message: report.error.message,
          ...(typeof report.error.code === "string" ? { code: report.error.code } : {}),
        },
      };
    }
  } catch {
    // not a report
  }
  return undefined;
}

export interface ServerProcess {
  /** The supervisor when supervised, else the server itself; it leads the process group on POSIX. */
  readonly child: ChildProcess;
  /** Resolves with the server's pid once it runs; rejects with the spawn error (its `code` kept). */
  readonly started: Promise<number>;
}

/**
 * Starts a stdio server with three pipes, as the leader of a new process group on POSIX, under the
 * supervisor unless `supervise` is false.
 */
export function spawnServer(spec: SupervisedSpec, supervise: boolean): ServerProcess {
  if (!supervise) {
    const child = spawn(spec.command, [...spec.args], {
      env: { ...spec.env },
      cwd: spec.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      detached: useProcessGroups,
      windowsHide: true,
    });
    const started = new Promise<number>((resolve, reject) => {
      child.once("spawn", () => resolve(child.pid as number));
      child.once("error", (error) => {
        if (child.pid === undefined) reject(error);
      });
    });
    return { child, started };
  }
  // No environment of its own: NODE_OPTIONS and the like are meant for the server, which gets its
  // environment through the control pipe.
  const child = spawn(process.execPath, supervisorArgs(), {
    env: {},
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    shell: false,
    detached: true,
    windowsHide: true,
  });
  const control = child.stdio[3] as Socket;
  const started = new Promise<number>((resolve, reject) => {
    let input = "";
    const onData = (data: Buffer) => {
      input += data.toString("utf8");
      const newline = input.indexOf("\n");
      if (newline === -1) {
        if (input.length > 64 * 1024) fail(new Error("The process supervisor wrote an invalid report"));
        return;
      }
      const report = parseReport(input.slice(0, newline));
      if (report && "pid" in report) {
        control.off("data", onData);
        // Keep it flowing: the child's "close" (and so the transport's) waits for this pipe's EOF.
        control.resume();
        resolve(report.pid);
      } else fail(Object.assign(new Error(report?.error.message ?? "invalid report"), report?.error ?? {}));
    };
    const fail = (error: Error) => {
      control.off("data", onData);
      reject(error);
    };
    control.on("data", onData);
    control.on("error", () => {});
    child.once("spawn", () => control.write(encodeSpec(spec)));
    child.once("error", (error) => {
      if (child.pid === undefined) fail(error);
    });
    child.once("exit", (code, signal) =>
      fail(new Error(`The process supervisor ended (${signal ?? `code ${code}`}) before the server started`)),
    );
  });
  return { child, started };
}
