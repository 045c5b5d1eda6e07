import { packageInfo } from "../../util/package-info.js";
import { suggest } from "../../util/suggest.js";
import type { CliIO } from "./cli-io.js";
import { createContext } from "./command-context.js";
import type { CommandDeclaration } from "./command-spec.js";
import { commandHelp, overviewHelp } from "./help.js";
import { DECLARED_COMMANDS } from "./help-table.js";
import { writeJson } from "./output.js";
import { commandWord, parseCommandArguments } from "./parse-arguments.js";
import { unknownCommand } from "./usage-errors.js";

/** An unknown command word, with the nearest command as a suggestion. */
function noSuchCommand(name: string) {
  const words = DECLARED_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  return unknownCommand({ name, near: suggest(name, [...words, "help"]) });
}

/** A command's declaration (help, flags), from the static table: no command is loaded for it. */
function declaredCommand(name: string): CommandDeclaration | undefined {
  return DECLARED_COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
}

/**
 * The command's implementation (and through it the config's field table, zod and the rest), loaded
 * only to run it: help and `--version` need none of them.
 */
async function commandToRun(name: string) {
  const { findCommand } = await import("./command-table.js");
  const spec = findCommand(name);
  if (!spec) throw noSuchCommand(name);
  return spec;
}

/** `--version`: the version, or with --json `{ "name": ..., "version": ... }`. */
function printVersion(io: CliIO, json: boolean): number {
  const { name, version } = packageInfo();
  if (json) writeJson(io, { name, version });
  else io.stdout.write(`${version}\n`);
  return 0;
}

/** Runs one CLI invocation; returns the exit code. Never calls process.exit. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let json = argv.includes("--json");
  try {
    const word = commandWord(argv);
    if (word === "__complete")
      return await (await import("./complete-names.js")).printCompletionNames(argv, io);
    if (word === undefined || word === "help") {
      const parsed = parseCommandArguments(argv, word, {}, { usage: "[COMMAND]", min: 0, max: 1 });
      json = parsed.global.json;
      if (parsed.global.version) return printVersion(io, parsed.global.json);
      const [topic] = parsed.positionals;
      if (topic !== undefined) {
        const spec = declaredCommand(topic);
        if (!spec) throw noSuchCommand(topic);
        io.stdout.write(commandHelp(spec));
        return 0;
      }
      io.stdout.write(overviewHelp(DECLARED_COMMANDS));
      return word === "help" || parsed.global.help ? 0 : 2;
    }
    const spec = declaredCommand(word);
    if (!spec) throw noSuchCommand(word);
    const parsed = parseCommandArguments(argv, word, spec.flags, spec.positionals);
    json = parsed.global.json;
    if (parsed.global.help) {
      io.stdout.write(commandHelp(spec));
      return 0;
    }
    if (parsed.global.version) return printVersion(io, parsed.global.json);
    return await (await commandToRun(spec.name)).run(createContext(io, parsed));
  } catch (error) {
    // Loaded for a failure only: help and `--version` do without the answer rendering.
    const { reportError } = await import("./command-answers.js");
    return reportError(io, json, error, argv.includes("-v") || argv.includes("--verbose"));
  }
}
