import type { Readable, Writable } from "node:stream";
import { configSearchPaths } from "../../config/search-paths.js";
import { noConfigFileFor } from "../../errors/cli-errors.js";
import { ErrorCode, isMcpBridgeError } from "../../errors/error-classes.js";
import { parseDuration } from "../../util/duration.js";
import { errorText } from "../../util/text-of.js";
import { daemonPaths } from "../daemon/paths.js";
import { connectAttached } from "./attach-connect.js";
import { relayAttached } from "./attach-shim.js";
import type { CliIO } from "./cli-io.js";
import { ATTACH_FLAGS, ATTACH_POSITIONALS, DAEMON_DEFAULT_IDLE } from "./declarations/process-commands.js";
import { refuseNested } from "./nesting-guard.js";
import { type GlobalOptions, parseCommandArguments } from "./parse-arguments.js";
import { terminalText } from "./terminal.js";

/**
 * `mcp-bridge attach`, the fast path: loaded by process-entry without the bridge, the SDK or the rest
 * of the CLI, so a host's new session costs Node's start-up plus a few small modules and one
 * connection to the warm daemon.
 */

export interface AttachIO extends CliIO {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/**
 * Runs `attach` for this command line; undefined when the full CLI must handle it instead (--help,
 * --version, a usage error, which it reports with its usual wording).
 */
export async function runAttach(argv: readonly string[], io: AttachIO): Promise<number | undefined> {
  let parsed: ReturnType<typeof parseCommandArguments<typeof ATTACH_FLAGS>>;
  try {
    parsed = parseCommandArguments(argv, "attach", ATTACH_FLAGS, ATTACH_POSITIONALS);
  } catch {
    return undefined;
  }
  if (parsed.global.help || parsed.global.version) return undefined;
  return attach(
    parsed.global,
    {
      idleMs: parsed.options.idle as number | undefined,
      codeMode: parsed.options["code-mode"] === true,
      llmResults: parsed.options["llm-results"] === true,
    },
    io,
  );
}

/**
 * With no config named or found, and no other host's config to import, the bundled example servers,
 * as every bridge command uses them (docs/other-languages.md attaches to the example calculator).
 * Loaded only then: the config loader is not on attach's fast path.
 */
async function fallback(
  global: GlobalOptions,
  io: AttachIO,
): Promise<{ path: string; named: string } | undefined> {
  if (global.config !== undefined) return undefined;
  const { exampleConfigWhenNoneFound } = await import("./config-choice.js");
  const example = exampleConfigWhenNoneFound({ cwd: io.cwd, env: io.env });
  if (example === undefined) return undefined;
  if (!global.quiet) io.stderr.write(`mcp-bridge attach: ${example.notice}\n`);
  return { path: example.path, named: example.path };
}

/** Connects to (or starts) the config's daemon and relays stdin/stdout to it until either ends. */
export async function attach(
  global: GlobalOptions,
  { idleMs, codeMode, llmResults }: { idleMs: number | undefined; codeMode: boolean; llmResults?: boolean },
  io: AttachIO,
): Promise<number> {
  const problem = (message: string) => {
    if (!global.quiet) io.stderr.write(`mcp-bridge attach: ${terminalText(message)}\n`);
  };
  try {
    // Under a bridge this attach is the bridge nested in itself: refused before any daemon starts.
    refuseNested(io.env, "attach");
    // The file the bridge commands would load here (the loader's search order), as `daemon start` finds it.
    const found = configSearchPaths({ path: global.config, cwd: io.cwd, env: io.env }).find((c) => c.used);
    const config = found?.exists ? { path: found.path, named: global.config } : await fallback(global, io);
    if (config === undefined) throw noConfigFileFor({ purpose: "daemon" });
    const target = {
      paths: daemonPaths(config.path, io.cwd, io.env),
      codeMode,
      llmResults,
      config: config.named,
      idleMs: idleMs ?? parseDuration(DAEMON_DEFAULT_IDLE),
      trustProject: global.trustProject === true,
      cwd: io.cwd,
      env: io.env,
    };
    const first = await connectAttached(target);
    if (global.verbose) problem(`attached to the daemon for ${config.path}`);
    return await relayAttached(first, {
      stdin: io.stdin as Readable,
      stdout: io.stdout as Writable,
      connect: () => connectAttached(target),
      onProblem: problem,
    });
  } catch (error) {
    // Not the CLI's reportError: its module (and what it renders) is not loaded on this path.
    // stdout is the host's MCP channel: the failure goes to stderr, which hosts show in their MCP logs.
    const code = isMcpBridgeError(error) ? error.code : "INTERNAL";
    io.stderr.write(`mcp-bridge attach: error: ${terminalText(errorText(error))}\n`);
    const usage =
      code === ErrorCode.ConfigNotFound || code === ErrorCode.ConfigInvalid || code === ErrorCode.Usage;
    return usage ? 2 : 1;
  }
}
