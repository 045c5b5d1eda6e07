/**
 * Spawns a stdio server: the host's three pipes, no shell, and on POSIX as the leader of a new process
 * group, so stopping it can signal everything it started (process-tree.ts) and the host's watchdog can
 * end that group if the host dies (watchdog.ts). The server is the host's own child: nothing relays its
 * pipes and nothing boots before it.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { useProcessGroups } from "./process-tree.js";
import { TREE_TAG_VARIABLE } from "./tree-tag.js";

/** What is spawned for a server: the program, its arguments, its whole environment, its folder. */
export interface SpawnSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** Called once when the process has ended or could not start (a sandbox's egress proxy closes). */
  readonly release?: (() => void) | undefined;
}

export interface ServerProcess {
  /** The server; it leads its process group on POSIX. */
  readonly child: ChildProcess;
  /** Resolves with the server's pid once it runs; rejects with the spawn error (its `code` kept). */
  readonly started: Promise<number>;
}

/** `tag` marks the server's whole tree in its environment (tree-tag.ts); "" for none. */
export function spawnServer(spec: SpawnSpec, tag = ""): ServerProcess {
  const child = spawn(spec.command, [...spec.args], {
    env: tag ? { ...spec.env, [TREE_TAG_VARIABLE]: tag } : { ...spec.env },
    cwd: spec.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    shell: false,
    detached: useProcessGroups,
    windowsHide: true,
  });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    spec.release?.();
  };
  child.once("close", release);
  const started = new Promise<number>((resolve, reject) => {
    child.once("spawn", () => resolve(child.pid as number));
    child.once("error", (error) => {
      if (child.pid !== undefined) return;
      release();
      reject(error);
    });
  });
  return { child, started };
}
