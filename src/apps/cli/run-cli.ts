import { packageInfo } from "../../util/package-info.js";
import { suggest } from "../../util/suggest.js";
import type { CliIO } from "./cli-io.js";
import type { CommandDeclaration } from "./command-spec.js";
import { writeJson } from "./output.js";
import { commandWord, parseCommandArguments } from "./parse-arguments.js";
import { unknownCommand } from "./usage-errors.js";

/**
 * The static table of the commands' declarations and the help text built from it, loaded once a command
 * word is read: `--version` needs neither.
 */
async function declarations() {
  const [{ DECLARED_COMMANDS }, help] = await Promise.all([
    import("./declarations/declared-commands.js"),
    import("./help.js"),
  ]);
  /** A command's declaration (help, flags), from the static table: no command is loaded for it. */
  const declared = (name: string): CommandDeclaration | undefined =>
    DECLARED_COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
  /** An unknown command word, with the nearest command as a suggestion. */
  const noSuchCommand = (name: string) => {
    const words = DECLARED_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    return unknownCommand({ name, near: suggest(name, [...words, "help"]) });
  };
  return { all: DECLARED_COMMANDS, declared, noSuchCommand, ...help };
}

/**
 * The command's implementation (and through it the config's field table, zod and the rest), loaded
 * only to run it: help and `--version` need none of them.
 */
async function commandToRun(name: string, noSuchCommand: (name: string) => Error) {
  const [{ findCommand }, { createContext }] = await Promise.all([
    import("./command-table.js"),
    import("./command-context.js"),
  ]);
  const spec = findCommand(name);
  // Only when a declaration has no command, which test/cli/declarations.test.ts prevents.
  if (!spec) throw noSuchCommand(name);
  return { spec, createContext };
}

/** `--version`: the version, or with --json `{ "name": ..., "version": ... }`. */
function printVersion(io: CliIO, json: boolean): number {
  const { name, version } = packageInfo();
  if (json) writeJson(io, { name, version });
  else io.stdout.write(`${version}\n`);
  return 0;
}

function isUsageError(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === "USAGE";
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
      const table = await declarations();
      const [topic] = parsed.positionals;
      if (topic !== undefined) {
        const spec = table.declared(topic);
        if (!spec) throw table.noSuchCommand(topic);
        io.stdout.write(table.commandHelp(spec));
        return 0;
      }
      io.stdout.write(table.overviewHelp(table.all));
      return word === "help" || parsed.global.help ? 0 : 2;
    }
    const table = await declarations();
    const declared = table.declared(word);
    if (!declared) throw table.noSuchCommand(word);
    const parsed = parseCommandArguments(argv, word, declared.flags, declared.positionals);
    json = parsed.global.json;
    if (parsed.global.help) {
      io.stdout.write(table.commandHelp(declared));
      return 0;
    }
    if (parsed.global.version) return printVersion(io, parsed.global.json);
    const { spec, createContext } = await commandToRun(declared.name, table.noSuchCommand);
    return await spec.run(createContext(io, parsed));
  } catch (error) {
    // Loaded for a failure only: help and `--version` do without the answer rendering.
    const [{ reportError }, { habitError }] = await Promise.all([
      import("./command-answers.js"),
      import("./habits.js"),
    ]);
    const redirected = isUsageError(error) ? (habitError(argv) ?? error) : error;
    return reportError(io, json, redirected, argv.includes("-v") || argv.includes("--verbose"));
  }
}
