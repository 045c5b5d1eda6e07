import { existsSync, unlinkSync } from "node:fs";
import { configSearchPaths } from "../../config/search-paths.js";
import { daemonRequest, NoDaemon } from "../daemon/client.js";
import { processAlive, readPid } from "../daemon/lock.js";
import { type DaemonPaths, daemonPaths, unsafeFolderReason } from "../daemon/paths.js";
import { callFailure, callInterrupted } from "../daemon/protocol.js";
import type { CliIO } from "./cli-io.js";
import { progressPrinter, renderAnswer, reportError } from "./command-answers.js";
import { type AnyOptions, type CommandContext, createContext } from "./command-context.js";
import { askedBy, type DaemonCommand } from "./command-requests.js";
import { surprisingConfig } from "./config-notice.js";
import {
  CALL_FLAGS,
  CALL_POSITIONALS,
  PROMPT_FLAGS,
  PROMPT_POSITIONALS,
  PROMPTS_FLAGS,
  PROMPTS_POSITIONALS,
  READ_FLAGS,
  READ_POSITIONALS,
  RESOURCES_FLAGS,
  RESOURCES_POSITIONALS,
  STATUS_FLAGS,
  STATUS_POSITIONALS,
  TOOLS_FLAGS,
  TOOLS_POSITIONALS,
} from "./daemon-command-flags.js";
import { commandWord, type Flags, type PositionalSpec, parseCommandArguments } from "./parse-arguments.js";
import { terminalText } from "./terminal.js";

/**
 * The CLI's daemon path: when a daemon serves the config a bridge command would use, the command is
 * answered by it. Everything here loads without the bridge or the SDK (node's start-up plus a few
 * small modules), which is what makes a call through a warm daemon fast.
 */

interface Route {
  readonly command: DaemonCommand;
  readonly flags: Flags;
  readonly positionals: PositionalSpec;
}

const ROUTES: Readonly<Record<string, Route>> = {
  call: { command: "call", flags: CALL_FLAGS, positionals: CALL_POSITIONALS },
  tools: { command: "tools", flags: TOOLS_FLAGS, positionals: TOOLS_POSITIONALS },
  describe: { command: "tools", flags: TOOLS_FLAGS, positionals: TOOLS_POSITIONALS },
  status: { command: "status", flags: STATUS_FLAGS, positionals: STATUS_POSITIONALS },
  resources: { command: "resources", flags: RESOURCES_FLAGS, positionals: RESOURCES_POSITIONALS },
  read: { command: "read", flags: READ_FLAGS, positionals: READ_POSITIONALS },
  prompts: { command: "prompts", flags: PROMPTS_FLAGS, positionals: PROMPTS_POSITIONALS },
  prompt: { command: "prompt", flags: PROMPT_FLAGS, positionals: PROMPT_POSITIONALS },
};

/** The config file a command would load (the loader's search order), when there is one. */
export function configFileFor(
  io: Pick<CliIO, "cwd" | "env">,
  config: string | undefined,
): { readonly path: string; readonly named: boolean; readonly surprising: boolean } | undefined {
  const chosen = configSearchPaths({
    path: config,
    cwd: io.cwd,
    env: io.env,
  }).find((candidate) => candidate.used);
  if (!chosen?.exists) return undefined;
  return { path: chosen.path, named: config !== undefined, surprising: surprisingConfig(chosen, io) };
}

/** A socket nobody listens on, left by a daemon that died: removed once its pid is gone too. */
function removeStale(paths: DaemonPaths): void {
  const pid = readPid(paths.pidFile);
  if (pid !== undefined && processAlive(pid)) return;
  for (const file of [paths.socket, paths.pidFile]) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

/**
 * Runs a bridge command through the config's daemon. Undefined when this command line is not for a
 * daemon (another command, --no-daemon, --help, a usage error the full CLI reports) or no daemon
 * answers: the caller then runs the command in-process, exactly as without a daemon.
 */
export async function runViaDaemon(argv: readonly string[], io: CliIO): Promise<number | undefined> {
  const word = commandWord(argv);
  const route = word !== undefined && Object.hasOwn(ROUTES, word) ? ROUTES[word] : undefined;
  if (!route) return undefined;
  let context: CommandContext;
  try {
    const parsed = parseCommandArguments(argv, word, route.flags, route.positionals);
    const options = parsed.options as Record<string, string | boolean | string[] | undefined>;
    // Servers given on the command line are not the daemon's: this process runs them.
    const adHoc =
      options.stdio !== undefined || options.http !== undefined || options["http-url"] !== undefined;
    if (parsed.global.help || parsed.global.version || options["no-daemon"] === true || adHoc)
      return undefined;
    context = createContext(io, parsed as typeof parsed & { options: AnyOptions });
  } catch {
    return undefined;
  }
  const config = configFileFor(io, context.global.config);
  if (!config) return undefined;
  const paths = daemonPaths(config.path, io.cwd, io.env);
  if (!existsSync(paths.socket)) return undefined;
  try {
    // Only a folder of ours: a socket another user could have placed is never talked to.
    if (unsafeFolderReason(paths.folder) !== undefined) return undefined;
  } catch {
    return undefined;
  }
  let asked: ReturnType<typeof askedBy>;
  try {
    asked = askedBy(route.command, context);
  } catch {
    return undefined;
  }
  let announced = false;
  // What the in-process path says about the config it found, said once the daemon has answered.
  const announce = () => {
    if (announced) return;
    announced = true;
    if (!context.global.quiet && (context.global.verbose || config.surprising))
      io.stderr.write(`Using config ${terminalText(config.path)}\n`);
  };
  const printProgress = progressPrinter(context);
  try {
    const envelope = await daemonRequest(paths.socket, asked.operation, asked.body, {
      config: paths.config,
      signal: io.signal,
      onProgress: (progress) => {
        announce();
        printProgress(progress);
      },
    });
    announce();
    return renderAnswer(context, asked, envelope);
  } catch (error) {
    if (error instanceof NoDaemon) {
      removeStale(paths);
      return undefined;
    }
    announce();
    if (asked.operation === "call") {
      const name = String(asked.body.name);
      return renderAnswer(
        context,
        asked,
        io.signal?.aborted ? callInterrupted(name) : callFailure(name, error),
      );
    }
    return reportError(io, context.global.json, error);
  }
}
