/**
 * The processes of a cluster run (replicas, upstream fixtures, Redis, nginx): each spawned through one
 * place so that `stop()` ends every one of them and removes the run's directory, whatever failed.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root, from bench/cluster (vitest) or dist/bench/cluster (built). */
export const REPO_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || dir.endsWith(`${join("dist")}`)) {
    const up = dirname(dir);
    if (up === dir) throw new Error("no package.json above bench/cluster");
    dir = up;
  }
  return dir;
})();

export const BUILT_CLI = join(REPO_ROOT, "dist/src/apps/cli/bin.js");
export const builtFixture = (name: string) => join(REPO_ROOT, `dist/test/fixtures/servers/${name}.js`);

export interface ProcessGroup {
  /** The run's private directory (configs, keys, nginx prefix). */
  readonly work: string;
  spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** SIGTERM to every process still running, SIGKILL after `graceMs`; then the directory is removed. */
  stop(graceMs?: number): Promise<void>;
}

export function processGroup(prefix: string): ProcessGroup {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const children: ChildProcess[] = [];
  const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
  return {
    work,
    spawn(command, args, options = {}) {
      const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
      children.push(child);
      // Never let a full pipe stall a child whose output nobody reads any more.
      child.stdout?.resume();
      child.stderr?.resume();
      return child;
    },
    async stop(graceMs = 3_000) {
      const alive = children.filter(running);
      const exited = alive.map((child) => new Promise<void>((done) => child.once("exit", () => done())));
      for (const child of alive) child.kill("SIGTERM");
      const timer = setTimeout(() => {
        for (const child of alive) if (running(child)) child.kill("SIGKILL");
      }, graceMs);
      await Promise.all(exited);
      clearTimeout(timer);
      rmSync(work, { recursive: true, force: true });
    },
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
}

/** Polls `check` until it holds; throws `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Resolves with the first match of `pattern` in the child's stdout or stderr lines, bounded. */
export function outputMatch(
  child: ChildProcess,
  pattern: RegExp,
  what: string,
  timeoutMs: number,
): Promise<RegExpExecArray> {
  return new Promise((found, failed) => {
    const lines: string[] = [];
    const timer = setTimeout(
      () =>
        failed(
          new Error(
            `${what}: nothing matched ${pattern} in ${timeoutMs} ms; last output: ${lines.slice(-5).join(" | ")}`,
          ),
        ),
      timeoutMs,
    );
    const scan = (line: string) => {
      lines.push(line);
      const match = pattern.exec(line);
      if (match) {
        clearTimeout(timer);
        found(match);
      }
    };
    for (const stream of [child.stdout, child.stderr])
      if (stream) createInterface({ input: stream }).on("line", scan);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      failed(new Error(`${what} exited (${signal ?? code}); last output: ${lines.slice(-5).join(" | ")}`));
    });
  });
}

/** Whether an executable answers on this machine. */
export function hasCommand(command: string, args: readonly string[] = ["--version"]): Promise<boolean> {
  return new Promise((answer) => {
    const child = spawn(command, args, { stdio: "ignore" });
    child.once("error", () => answer(false));
    child.once("exit", () => answer(true));
  });
}
