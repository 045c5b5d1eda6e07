import type { CommandContext } from "./command-context.js";
import type { Flags, FlagValues, PositionalSpec } from "./parse-arguments.js";

/**
 * One CLI command, declared in its own file: its flags (typed), positionals, help text and examples.
 * run-cli.ts parses against this declaration, so help, "did you mean" and the rejection of options and
 * arguments a command does not take come for free with the declaration.
 */
export interface CommandSpec<F extends Flags = Flags> {
  readonly name: string;
  /** Other words that run it (`describe` for `tools NAME`). */
  readonly aliases?: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** Longer help: what it does, exit codes, --json shape. */
  readonly description?: string;
  readonly flags: F;
  readonly positionals: PositionalSpec;
  /** Complete command lines, shown under "Examples:" (without the leading `mcp-bridge`). */
  readonly examples: readonly string[];
  run(context: CommandContext<FlagValues<F>>): Promise<number>;
}

/**
 * What help and argument parsing need of a command, without its implementation: the static table
 * `help-table.ts` holds one per command, so `--help` loads no command.
 */
export type CommandDeclaration = Omit<CommandSpec, "run">;

/** Keeps the flag types of a declaration (`const` so `type: "string"` stays a literal). */
export function defineCommand<const F extends Flags>(spec: CommandSpec<F>): CommandSpec<F> {
  return spec;
}

/** The common `--server NAME` flag. */
export const SERVER_FLAG = {
  type: "string",
  short: "s",
  value: "NAME",
  description: "only this server (the others are not started)",
} as const;

/** The common `--timeout DURATION` flag. */
export const TIMEOUT_FLAG = {
  type: "duration",
  short: "t",
  value: "DURATION",
  description: "give up after this long (30s, 2m, 500ms; a bare number is seconds)",
} as const;
