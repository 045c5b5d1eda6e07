import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { DaemonPaths } from "../daemon/paths.js";

export interface DaemonSpawn {
  readonly paths: DaemonPaths;
  /** The --config the user gave, if any (the daemon finds the same file by the same search order). */
  readonly config: string | undefined;
  readonly idleMs: number;
  readonly trustProject: boolean;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Starts `mcp-bridge daemon run` detached, its output appended to the daemon's log; what `daemon start`
 * and `attach` both do when no daemon answers. Returns a function telling whether the child already
 * exited with a failure (exit 0: another start won the race, and its daemon will answer soon).
 */
export function spawnDaemon(options: DaemonSpawn): () => boolean {
  const bin = fileURLToPath(new URL("./bin.js", import.meta.url));
  const args = [bin, "daemon", "run"];
  if (options.config !== undefined) args.push("--config", options.config);
  args.push("--idle", `${options.idleMs}ms`);
  if (options.trustProject) args.push("--trust-project");
  const log = openSync(options.paths.log, "a", 0o600);
  let failed = false;
  try {
    // No shell; its own session, so the terminal's signals (Ctrl-C, closing it) do not reach it.
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", log, log],
    });
    child.on("exit", (code) => {
      failed = code !== 0;
    });
    child.on("error", () => {
      failed = true;
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  return () => failed;
}
