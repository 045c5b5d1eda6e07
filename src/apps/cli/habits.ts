import { suggest } from "../../util/suggest.js";
import { commandWord } from "./parse-arguments.js";
import { habitRedirect } from "./usage-errors.js";

const AUTH_SUBCOMMANDS = ["login", "logout", "status", "forget-inputs"];

/**
 * Command lines users bring from other tools (mcporter, Claude Code's `claude mcp`) or guess from
 * other CLIs, which mcp-bridge spells differently: when one fails to parse, the usage error says what
 * to run instead rather than only that it is unknown. Consulted only after parsing failed, so a valid
 * command line is never rewritten.
 */
const HABITS: readonly {
  readonly matches: (command: string, next: string | undefined, argv: readonly string[]) => boolean;
  readonly given: string;
  readonly instead: string;
}[] = [
  {
    matches: (command, _next, argv) => command === "list" && argv.includes("--schema"),
    given: "`list SERVER --schema`",
    instead:
      "`mcp-bridge list SERVER --json` gives each tool with its input schema, and `mcp-bridge describe TOOL` one tool in full.",
  },
  {
    matches: (command, next) => command === "config" && next === "add",
    given: "`config add`",
    instead: "add a server with `mcp-bridge add NAME -- COMMAND ARGS...` (or `mcp-bridge add NAME URL`).",
  },
  {
    matches: (command, next) => command === "config" && (next === "list" || next === "ls"),
    given: "`config list`",
    instead:
      "`mcp-bridge list` lists the configured servers, and `mcp-bridge config show` prints the resolved config.",
  },
  {
    matches: (command, _next, argv) =>
      command === "add" && argv.some((arg) => arg === "--scope" || arg.startsWith("--scope=")),
    given: "`add --scope` (Claude Code's)",
    instead:
      "`mcp-bridge add` writes to the first config of the search order, else your user config; choose the file with `-c FILE` (`mcp-bridge config paths` lists where each scope's file is).",
  },
  {
    matches: (command) => command === "get",
    given: "`get NAME` (Claude Code's)",
    instead:
      "`mcp-bridge list NAME` starts that server and lists its tools; `mcp-bridge config show` prints its entry.",
  },
  {
    // Not a misspelt subcommand (`auth logn x`): that keeps its "did you mean" answer.
    matches: (command, next) =>
      command === "auth" &&
      next !== undefined &&
      !AUTH_SUBCOMMANDS.includes(next) &&
      suggest(next, AUTH_SUBCOMMANDS) === undefined,
    given: "`auth SERVER`",
    instead: "log in with `mcp-bridge auth login SERVER` (`auth status` shows the stored logins).",
  },
  {
    matches: (command, next) => command === "daemon" && next === "restart",
    given: "`daemon restart`",
    instead: "run `mcp-bridge daemon stop`, then `mcp-bridge daemon start`.",
  },
];

/** The usage error that redirects a habit of another tool, or undefined when `argv` is none. */
export function habitError(argv: readonly string[]): Error | undefined {
  const command = commandWord(argv);
  if (command === undefined) return undefined;
  const after = argv.slice(argv.indexOf(command) + 1);
  // The first word after the command that is neither an option nor the config option's value.
  const next = after.find(
    (arg, index) => !arg.startsWith("-") && !["-c", "--config"].includes(after[index - 1] ?? ""),
  );
  const habit = HABITS.find((entry) => entry.matches(command, next, argv));
  return habit === undefined ? undefined : habitRedirect({ given: habit.given, instead: habit.instead });
}
