import { packageInfo } from "../../util/package-info.js";
import { suggest } from "../../util/suggest.js";
import type { CliIO } from "./cli-io.js";
import { reportError } from "./command-answers.js";
import { createContext } from "./command-context.js";
import type { CommandSpec } from "./command-spec.js";
import { commandHelp, overviewHelp } from "./help.js";
import { writeJson } from "./output.js";
import { commandWord, parseCommandArguments } from "./parse-arguments.js";
import { unknownCommand } from "./usage-errors.js";

/** An unknown command word, with the nearest command as a suggestion. */
function noSuchCommand(COMMANDS: readonly CommandSpec[], name: string) {
  const near = suggest(name, [...COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]), "help"]);
  return unknownCommand({ name, near });
}

/**
 * The commands (and through them the config's field table, zod and the rest) load once a command or
 * help is asked for: `--version` needs none of them.
 */
const commandTable = () => import("./command-table.js");

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
      const { COMMANDS, findCommand } = await commandTable();
      const [topic] = parsed.positionals;
      if (topic !== undefined) {
        const spec = findCommand(topic);
        if (!spec) throw noSuchCommand(COMMANDS, topic);
        io.stdout.write(commandHelp(spec));
        return 0;
      }
      io.stdout.write(overviewHelp(COMMANDS));
      return word === "help" || parsed.global.help ? 0 : 2;
    }
    const { COMMANDS, findCommand } = await commandTable();
    const spec = findCommand(word);
    if (!spec) throw noSuchCommand(COMMANDS, word);
    const parsed = parseCommandArguments(argv, word, spec.flags, spec.positionals);
    json = parsed.global.json;
    if (parsed.global.help) {
      io.stdout.write(commandHelp(spec));
      return 0;
    }
    if (parsed.global.version) return printVersion(io, parsed.global.json);
    return await spec.run(createContext(io, parsed));
  } catch (error) {
    return reportError(io, json, error, argv.includes("-v") || argv.includes("--verbose"));
  }
}
