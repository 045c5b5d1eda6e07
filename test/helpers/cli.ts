import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll } from "vitest";
import { runProcess } from "./process.js";

export const CLI = resolve("dist/src/apps/cli/bin.js");

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fresh HOME/cwd with no config anywhere, so only what a test writes is found. */
export function emptyHome(): string {
  return mkdtempSync(join(tmpdir(), "mcp-bridge-cli-"));
}

export interface CliHome {
  readonly home: string;
  readonly env: Record<string, string>;
  /** `servers.json` in the home, holding the given servers under `mcpServers`. */
  readonly config: string;
}

/**
 * An empty home with a config of the given servers, removed after the test file: the setup every CLI
 * test file starts from.
 */
export function cliHome(servers: Record<string, unknown>): CliHome {
  const home = emptyHome();
  const config = join(home, "servers.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  return { home, env: cliEnv(home), config };
}

export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ["PATH", "SYSTEMROOT", "TMPDIR"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  // MCP_BRIDGE_TOKEN_STORE: OAuth tokens in the test's files, never in a developer's keychain.
  const base = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), NO_COLOR: "1" };
  return { ...env, ...base, MCP_BRIDGE_TOKEN_STORE: "file", ...extra };
}

/** Runs the built CLI as a child process, bounded in time. */
export function runCli(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<CliRun> {
  return runProcess(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs ?? 20_000,
    label: `mcp-bridge ${args.join(" ")}`,
  });
}

/** The CLI's code that `runCliInProcess` runs, loaded once per test file. */
async function cliCode() {
  const { runCli: run } = await import("../../src/apps/cli/run-cli.js");
  const { runViaDaemon } = await import("../../src/apps/cli/daemon-route.js");
  return { run, runViaDaemon };
}

/**
 * Runs the CLI's `runCli` in this process, with the same environment and working directory as the
 * built CLI would get: for commands that start nothing (help, usage errors), where a process per run
 * would cost most of a test file's time, and for output checked as a terminal would get it (`tty`).
 */
export async function runCliInProcess(
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    tty?: boolean;
    /** As the built CLI does (process-entry.ts): a running daemon answers first, else the CLI runs here. */
    daemon?: boolean;
  },
): Promise<CliRun> {
  const { run, runViaDaemon } = await cliCode();
  const stdout = new CapturedOutput(options.tty === true);
  const stderr = new CapturedOutput(options.tty === true);
  const io = { stdout, stderr, env: options.env, cwd: options.cwd };
  const answered = options.daemon === true ? await runViaDaemon(args, io) : undefined;
  const code = answered ?? (await run(args, io));
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/**
 * Loads the CLI's code for `runCliInProcess` before the file's tests, with a bound of its own: on a
 * loaded machine the first load (compiling the whole CLI) can take longer than one test may.
 */
export function preloadCliInProcess(): void {
  beforeAll(async () => {
    await cliCode();
  }, 120_000);
}

/** A writable that keeps what it is given, as text, optionally claiming to be a terminal. */
class CapturedOutput extends Writable {
  text = "";
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: unknown, _encoding: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

/** Starts the CLI without waiting for it (for signal tests). */
export function spawnCli(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * `mcp-bridge auth login SERVER -c CONFIG` with fetch as the browser: it follows the authorization
 * server's redirect to the CLI's loopback callback. Returns the login page's status and the CLI's run.
 */
export async function loginThroughBrowser(
  server: string,
  config: string,
  home: string,
  extraEnv: Record<string, string> = {},
): Promise<CliRun & { readonly pageStatus: number }> {
  const child = spawnCli(["auth", "login", server, "-c", config], {
    cwd: home,
    env: cliEnv(home, { MCP_BRIDGE_NO_BROWSER: "1", ...extraEnv }),
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  const loginUrl = new Promise<string>((resolve) => {
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /Open this URL to log in:\s+(\S+)/.exec(stderr);
      if (match) resolve(match[1] as string);
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const page = await fetch(await loginUrl);
  return { pageStatus: page.status, code: await exited, stdout, stderr };
}
