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
 * What help and argument parsing need of a command, without its implementation: `declarations/` holds
 * one per command, apart from the command's code, so `--help` loads no command.
 */
export type CommandDeclaration<F extends Flags = Flags> = Omit<CommandSpec<F>, "run">;

/** Keeps the flag types of a declaration, as defineCommand does for a whole command. */
export function declareCommand<const F extends Flags>(
  declaration: CommandDeclaration<F>,
): CommandDeclaration<F> {
  return declaration;
}

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

/** `--tag TAG`: the servers labelled so in their config entry (`tags`); repeated: any of them. */
export const TAG_FLAG = {
  type: "string",
  multiple: true,
  value: "TAG",
  description: "only the servers with this label in their `tags` (repeat for any of several)",
} as const;

/** The common `--timeout DURATION` flag. */
export const TIMEOUT_FLAG = {
  type: "duration",
  short: "t",
  value: "DURATION",
  description: "give up after this long (30s, 2m, 500ms; a bare number is seconds)",
} as const;
