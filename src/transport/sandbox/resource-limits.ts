/**
 * Resource limits of a stdio server (`limits` in its entry), enforced by the kernel as rlimits set by
 * util-linux `prlimit`, which sets them on itself and then executes the server (execve, no shell).
 * Sandboxed, prlimit runs inside bwrap, after the server's user namespace exists: the kernel then
 * counts RLIMIT_NPROC in that namespace, that is the server's own processes and threads, not every
 * process of the user. A server a limit stopped is recognised afterwards (`limitHit`) from how it
 * ended and its last stderr lines, so the failure message says which limit.
 */

import type { ResourceLimits } from "../../config/model.js";
import { limitsProgramMissing, limitsUnsupported } from "../../errors/index.js";
import type { SpawnSpec } from "../spawn-server.js";
import { findCommand } from "./host-facts.js";

/** prlimit's options for `limits` (soft and hard equal, but for the CPU: SIGXCPU first, SIGKILL a second later). */
export function prlimitOptions(limits: ResourceLimits): string[] {
  const options: string[] = [];
  if (limits.memoryMb !== undefined) options.push(`--data=${limits.memoryMb * 1024 * 1024}`);
  if (limits.pids !== undefined) options.push(`--nproc=${limits.pids}`);
  if (limits.cpuSeconds !== undefined) options.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`);
  return options;
}

/** The prlimit program to run, or the error that refuses the start (a limit is never silently dropped). */
export function findPrlimit(
  server: string,
  hostPath: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform !== "linux") throw limitsUnsupported({ server, platform });
  const found = findCommand("prlimit", hostPath, "/");
  if (found === undefined) throw limitsProgramMissing({ server });
  return found;
}

/** `spec` run under prlimit with `limits` (for a server without a sandbox). */
export function limitedSpec(spec: SpawnSpec, prlimit: string, limits: ResourceLimits): SpawnSpec {
  return { ...spec, command: prlimit, args: [...prlimitOptions(limits), "--", spec.command, ...spec.args] };
}

export type LimitKind = "memoryMb" | "pids" | "cpuSeconds";

/** What a process says when an allocation failed (Node/V8, Python, libc, C++). */
const OUT_OF_MEMORY =
  /heap out of memory|Fatal process out of memory|\bMemoryError\b|Cannot allocate memory|\bENOMEM\b|std::bad_alloc|\bout of memory\b/i;
/** What a process says when it could not start a process or thread (Node, Python, libc, Go). */
const NO_MORE_PROCESSES =
  /\bEAGAIN\b|Resource temporarily unavailable|can't start new thread|pthread_create|fork: retry/i;
/** SIGXCPU, as a signal or as the exit code bwrap and shells give a child it ended (128 + 24). */
const SIGXCPU_EXIT = 152;

/**
 * The limit that stopped a server, judged from how it ended and its last stderr lines; undefined
 * when nothing shows a limit was the cause. Only a limit that is set is ever named.
 */
export function limitHit(
  limits: ResourceLimits | undefined,
  exit: { readonly code: number | null; readonly signal: string | null } | undefined,
  stderr: readonly string[],
): LimitKind | undefined {
  if (limits === undefined) return undefined;
  if (limits.cpuSeconds !== undefined && (exit?.signal === "SIGXCPU" || exit?.code === SIGXCPU_EXIT))
    return "cpuSeconds";
  const tail = stderr.slice(-40);
  if (limits.memoryMb !== undefined && tail.some((line) => OUT_OF_MEMORY.test(line))) return "memoryMb";
  if (limits.pids !== undefined && tail.some((line) => NO_MORE_PROCESSES.test(line))) return "pids";
  return undefined;
}
