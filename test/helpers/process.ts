import { spawn } from "node:child_process";
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

export interface ProcessRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command (never through a shell) to its end and collects its output, bounded in time: past
 * `timeoutMs` it is killed and the promise rejects with what it printed so far.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    label?: string;
    /** Written to its stdin, which is then closed. */
    input?: string;
  },
): Promise<ProcessRun> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env });
    if (options.input !== undefined) child.stdin.end(options.input);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      const label = options.label ?? `${command} ${args.join(" ")}`;
      fail(
        new Error(
          `${label} did not finish in ${options.timeoutMs / 1000} s\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
