import { packageInfo } from "../../util/package-info.js";
import { suggest } from "../../util/suggest.js";
import type { CliIO } from "./cli-io.js";
import { reportError } from "./command-answers.js";
import { createContext } from "./command-context.js";
import { type CommandSpec, defineCommand } from "./command-spec.js";
import { addCommand, removeCommand } from "./commands/add-remove-command.js";
import { authCommand } from "./commands/auth-command.js";
import { callCommand } from "./commands/call-command.js";
import { chatCommand } from "./commands/chat-command.js";
import { configCommand } from "./commands/config-command.js";
import { daemonCommand } from "./commands/daemon-command.js";
import { listCommand } from "./commands/list-command.js";
import { pinsCommand } from "./commands/pins-command.js";
import { promptCommand, promptsCommand } from "./commands/prompts-command.js";
import { readCommand, resourcesCommand } from "./commands/resources-command.js";
import { serveCommand } from "./commands/serve-command.js";
import { statusCommand } from "./commands/status-command.js";
import { toolsCommand } from "./commands/tools-command.js";
import { trustCommand } from "./commands/trust-command.js";
import { printCompletionNames } from "./complete-names.js";
import { completionScript, SHELLS, type Shell } from "./completion.js";
import { commandHelp, overviewHelp } from "./help.js";
import { writeJson } from "./output.js";
import { commandWord, parseCommandArguments } from "./parse-arguments.js";
import { unknownCommand } from "./usage-errors.js";

const BASE_COMMANDS: readonly CommandSpec[] = [
  listCommand,
  addCommand,
  removeCommand,
  statusCommand,
  toolsCommand,
  callCommand,
  resourcesCommand,
  readCommand,
  promptsCommand,
  promptCommand,
  configCommand,
  serveCommand,
  chatCommand,
  authCommand,
  trustCommand,
  pinsCommand,
  daemonCommand,
] as unknown as readonly CommandSpec[];

/** `mcp-bridge completion bash|zsh|fish`: generated from the declarations above. */
const completionCommand = defineCommand({
  name: "completion",
  summary: "shell completion script for bash, zsh or fish",
  flags: {},
  positionals: { usage: "bash|zsh|fish", min: 1, max: 1, choices: SHELLS },
  examples: [
    'completion bash >> ~/.bashrc   (or eval "$(mcp-bridge completion bash)")',
    "completion zsh > ~/.zsh/completions/_mcp-bridge",
    "completion fish > ~/.config/fish/completions/mcp-bridge.fish",
  ],
  description:
    "With --json: { shell, script } (the script as text), for installers that write it themselves. Completes commands, options, and the configured server and tool names (read from `mcp-bridge __complete`, which never starts a server).",
  run: async (context) => {
    const shell = context.positionals[0] as Shell;
    const script = completionScript(shell, COMMANDS);
    if (context.global.json) writeJson(context.io, { shell, script });
    else context.io.stdout.write(script);
    return 0;
  },
});

/** Every command, in the order of `mcp-bridge --help`. */
export const COMMANDS: readonly CommandSpec[] = [
  ...BASE_COMMANDS,
  completionCommand as unknown as CommandSpec,
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
}

/** An unknown command word, with the nearest command as a suggestion. */
function noSuchCommand(name: string) {
  const near = suggest(name, [...COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]), "help"]);
  return unknownCommand({ name, near });
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
    if (word === "__complete") return await printCompletionNames(argv, io);
    if (word === undefined || word === "help") {
      const parsed = parseCommandArguments(argv, word, {}, { usage: "[COMMAND]", min: 0, max: 1 });
      json = parsed.global.json;
      if (parsed.global.version) return printVersion(io, parsed.global.json);
      const [topic] = parsed.positionals;
      if (topic !== undefined) {
        const spec = findCommand(topic);
        if (!spec) throw noSuchCommand(topic);
        io.stdout.write(commandHelp(spec));
        return 0;
      }
      io.stdout.write(overviewHelp(COMMANDS));
      return word === "help" || parsed.global.help ? 0 : 2;
    }
    const spec = findCommand(word);
    if (!spec) throw noSuchCommand(word);
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
