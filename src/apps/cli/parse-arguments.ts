import { parseArgs } from "node:util";
import { ErrorCode, McpBridgeError } from "../../errors/index.js";
import { suggest } from "../../util/suggest.js";

/** One option a command (or the CLI as a whole) takes. */
export interface FlagSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  /** May be given more than once (`--header A=1 --header B=2`); the value is then a list. */
  readonly multiple?: boolean;
  /** The placeholder shown in help (`--timeout DURATION`). */
  readonly value?: string;
  readonly description: string;
}

export type Flags = Readonly<Record<string, FlagSpec>>;

type FlagValue<S extends FlagSpec> = S["type"] extends "boolean"
  ? boolean | undefined
  : S["multiple"] extends true
    ? string[] | undefined
    : string | undefined;

/** The parsed values of a command's flags, typed from its declaration. */
export type FlagValues<F extends Flags> = { -readonly [K in keyof F]: FlagValue<F[K]> };

export interface GlobalOptions {
  readonly config?: string;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly help: boolean;
  readonly version: boolean;
  readonly color?: boolean;
  /** Start servers of project-level config files without asking (this run only). */
  readonly trustProject: boolean;
}

/** The options every command takes. */
export const GLOBAL_FLAGS = {
  config: {
    type: "string",
    short: "c",
    value: "PATH",
    description: "config file (default: the search order, see `config paths`)",
  },
  json: { type: "boolean", description: "print one JSON document on stdout and nothing else" },
  quiet: { type: "boolean", short: "q", description: "only errors on stderr" },
  verbose: { type: "boolean", short: "v", description: "more detail (stderr of failed servers, debug logs)" },
  help: { type: "boolean", short: "h", description: "help (of a command: `mcp-bridge CMD --help`)" },
  version: { type: "boolean", short: "V", description: "the version" },
  "no-color": { type: "boolean", description: "no colors" },
  "trust-project": {
    type: "boolean",
    description:
      "start this folder's project-config servers without asking (this run only; or set MCP_BRIDGE_TRUST_PROJECT=1, e.g. in CI)",
  },
} as const satisfies Flags;

/** How many positionals a command takes, and their names for help and errors. */
export interface PositionalSpec {
  /** As shown in the usage line, e.g. `TOOL [key=value ...]`. */
  readonly usage: string;
  readonly min: number;
  /** Infinity for "any number". */
  readonly max: number;
  /** When set, the first positional must be one of these (a subcommand). */
  readonly choices?: readonly string[];
}

export function usageError(message: string): McpBridgeError {
  return new McpBridgeError(ErrorCode.Usage, message);
}

export interface ParsedArguments<F extends Flags> {
  readonly global: GlobalOptions;
  readonly options: FlagValues<F>;
  readonly positionals: string[];
  /** How many positionals came before a `--` (undefined without one): `add NAME -- CMD ARGS`. */
  readonly terminatorAt?: number;
}

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * The command word: the first argument that is not a global option (or a global option's value).
 * Undefined when there is none.
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === "--") return argv[index + 1];
    if (arg === "-c" || arg === "--config") {
      index++;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") return arg;
  }
  return undefined;
}

/**
 * Parses one command's arguments: the global options plus the command's own flags. Anything else is a
 * usage error that names the command and suggests the nearest option; so is a positional the command
 * does not take. `command` is the command word, removed from the positionals.
 */
export function parseCommandArguments<F extends Flags>(
  argv: readonly string[],
  command: string | undefined,
  flags: F,
  positionals: PositionalSpec | undefined,
): ParsedArguments<F> {
  const all: Flags = { ...GLOBAL_FLAGS, ...flags };
  const where = command ? `\`mcp-bridge ${command}\`` : "mcp-bridge";
  const helpHint = command ? `Run \`mcp-bridge ${command} --help\`.` : "Run `mcp-bridge --help`.";
  const { tokens } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(
      Object.entries(all).map(([name, spec]) => [
        name,
        {
          type: spec.type,
          ...(spec.short ? { short: spec.short } : {}),
          ...(spec.multiple ? { multiple: true } : {}),
        },
      ]),
    ),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const values: Record<string, string | boolean | string[]> = {};
  const rest: string[] = [];
  let commandSeen = command === undefined;
  let wantsHelp = false;
  let terminatorAt: number | undefined;
  for (const token of tokens) {
    if (token.kind === "option-terminator") {
      terminatorAt = rest.length;
      continue;
    }
    if (token.kind === "positional") {
      if (!commandSeen && token.value === command) commandSeen = true;
      else rest.push(token.value);
      continue;
    }
    const spec = all[token.name];
    if (!spec) {
      const names = Object.keys(all).map((name) => `--${name}`);
      const near = suggest(token.rawName, names);
      throw usageError(
        `Unknown option ${quote(token.rawName)} for ${where}.${near ? ` Did you mean ${near}?` : ""} ${helpHint}`,
      );
    }
    if (token.name === "help") wantsHelp = true;
    if (spec.type === "boolean") {
      if (token.value !== undefined)
        throw usageError(`Option --${token.name} takes no value (got ${quote(token.value)}). ${helpHint}`);
      values[token.name] = true;
      continue;
    }
    // A string option needs a value; the next option is never taken as it (`--server --json`).
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
      if (wantsHelp) continue;
      throw usageError(
        `Option --${token.name} needs a value: --${token.name} ${spec.value ?? "VALUE"}. ${helpHint}`,
      );
    }
    if (spec.multiple)
      values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value];
    else if (values[token.name] !== undefined && values[token.name] !== token.value)
      throw usageError(`Option --${token.name} was given twice. ${helpHint}`);
    else values[token.name] = token.value;
  }
  const global: GlobalOptions = {
    ...(typeof values.config === "string" ? { config: values.config } : {}),
    json: values.json === true,
    quiet: values.quiet === true,
    verbose: values.verbose === true,
    help: values.help === true,
    version: values.version === true,
    ...(values["no-color"] === true ? { color: false } : {}),
    trustProject: values["trust-project"] === true,
  };
  if (!global.help && !global.version && positionals) checkPositionals(rest, positionals, where, helpHint);
  const options = Object.fromEntries(Object.keys(flags).map((name) => [name, values[name]])) as FlagValues<F>;
  return { global, options, positionals: rest, ...(terminatorAt === undefined ? {} : { terminatorAt }) };
}

function checkPositionals(rest: readonly string[], spec: PositionalSpec, where: string, hint: string): void {
  const [first] = rest;
  if (spec.choices && first !== undefined && !spec.choices.includes(first)) {
    const near = suggest(first, spec.choices);
    throw usageError(
      `Unknown subcommand ${quote(first)} for ${where}; use ${spec.choices.join(", ")}.${near ? ` Did you mean "${near}"?` : ""}`,
    );
  }
  if (rest.length < spec.min) throw usageError(`${where} needs ${spec.usage}. ${hint}`);
  if (rest.length > spec.max) {
    const extra = rest.slice(spec.max).map(quote).join(" ");
    throw usageError(
      spec.max === 0
        ? `${where} takes no arguments, got ${extra}. ${hint}`
        : `${where} takes ${spec.usage}; unexpected ${extra}. ${hint}`,
    );
  }
}

export { parseKeyValues, parseKeyValuesFor } from "../../util/key-values.js";
