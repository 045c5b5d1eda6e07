import { homedir } from "node:os";
import { parseArgs } from "node:util";
import { definedOnly } from "../../util/defined.js";
import { parseDuration } from "../../util/duration.js";
import { expandHome } from "../../util/home-path.js";
import { suggest } from "../../util/suggest.js";
import { GLOBAL_FLAGS } from "./global-flags.js";
import {
  badFlagValue,
  flagGivenTwice,
  flagNeedsValue,
  flagTakesNoValue,
  missingArgument,
  noArgumentsTaken,
  quoted,
  unexpectedArguments,
  unknownOption,
  unknownSubcommand,
} from "./usage-errors.js";

/**
 * What a flag's value is; the parser turns the text into it, so commands never re-parse strings:
 * `duration` -> milliseconds (`30s`, `2m`, `500ms`; a bare number is seconds), `int` -> a whole
 * number (at least `min`, default 1), `address` -> `{ host, port }` from `[HOST:]PORT` (a bare port
 * is 127.0.0.1's), `choice` -> one of `choices`, `path` -> the text with a leading `~` expanded (a
 * host runs mcp-bridge without a shell, so `--auth ~/tokens.json` would otherwise name `./~/tokens.json`).
 */
export type FlagKind = "string" | "boolean" | "duration" | "int" | "address" | "choice" | "path";

/** One option a command (or the CLI as a whole) takes. */
export interface FlagSpec {
  readonly type: FlagKind;
  readonly short?: string;
  /** May be given more than once (`--header A=1 --header B=2`); the value is then a list. */
  readonly multiple?: boolean;
  /** The placeholder shown in help (`--timeout DURATION`). */
  readonly value?: string;
  readonly description: string;
  /** `int`: the smallest value accepted (default 1). */
  readonly min?: number;
  /** `choice`: the words accepted. */
  readonly choices?: readonly string[];
}

export type Flags = Readonly<Record<string, FlagSpec>>;

/** A `[HOST:]PORT` flag's value. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

type ScalarValue<S extends FlagSpec> = S["type"] extends "duration" | "int"
  ? number
  : S["type"] extends "address"
    ? ListenAddress
    : S["type"] extends "choice"
      ? S["choices"] extends readonly (infer C)[]
        ? C
        : string
      : string;

type FlagValue<S extends FlagSpec> = S["type"] extends "boolean"
  ? boolean | undefined
  : S["multiple"] extends true
    ? ScalarValue<S>[] | undefined
    : ScalarValue<S> | undefined;

/** The parsed values of a command's flags, typed from its declaration. */
export type FlagValues<F extends Flags> = { -readonly [K in keyof F]: FlagValue<F[K]> };

/** Any flag's parsed value. */
export type AnyFlagValue =
  | string
  | boolean
  | number
  | ListenAddress
  | readonly (string | number | ListenAddress)[];

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

// In a file of its own: help.ts reads it, and `--help` loads neither this parser nor its errors.
export { GLOBAL_FLAGS };

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

export interface ParsedArguments<F extends Flags> {
  readonly global: GlobalOptions;
  readonly options: FlagValues<F>;
  readonly positionals: string[];
  /** How many positionals came before a `--` (undefined without one): `add NAME -- CMD ARGS`. */
  readonly terminatorAt?: number;
}

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
        // node's parseArgs rejects an option whose `short` is present but undefined: a wire shape.
        {
          ...definedOnly({ short: spec.short }),
          type: spec.type === "boolean" ? ("boolean" as const) : ("string" as const),
          multiple: spec.multiple === true,
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
      throw unknownOption({ option: token.rawName, where, near, hint: helpHint });
    }
    if (token.name === "help") wantsHelp = true;
    if (spec.type === "boolean") {
      if (token.value !== undefined)
        throw flagTakesNoValue({ flag: token.name, value: token.value, hint: helpHint });
      values[token.name] = true;
      continue;
    }
    // An option with a value needs one; the next option is never taken as it (`--server --json`).
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
      if (wantsHelp) continue;
      throw flagNeedsValue({ flag: token.name, placeholder: spec.value ?? "VALUE", hint: helpHint });
    }
    if (spec.multiple)
      values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value];
    else if (values[token.name] !== undefined && values[token.name] !== token.value)
      throw flagGivenTwice({ flag: token.name, hint: helpHint });
    else values[token.name] = token.value;
  }
  const global: GlobalOptions = {
    config: typeof values.config === "string" ? values.config : undefined,
    json: values.json === true,
    quiet: values.quiet === true,
    verbose: values.verbose === true,
    help: values.help === true,
    version: values.version === true,
    color: values["no-color"] === true ? false : undefined,
    trustProject: values["trust-project"] === true,
  };
  // Asking for help or the version runs nothing: a bad value or argument is not an error then.
  const running = !global.help && !global.version;
  if (running && positionals) checkPositionals(rest, positionals, where, helpHint);
  const options = Object.fromEntries(
    Object.entries(flags).map(([name, spec]) => [
      name,
      running ? typedValue(name, spec, values[name]) : undefined,
    ]),
  ) as FlagValues<F>;
  return { global, options, positionals: rest, terminatorAt };
}

/** A flag's text turned into the value its kind declares; a bad one is the kind's usage error. */
function typedValue(name: string, spec: FlagSpec, raw: string | boolean | string[] | undefined): unknown {
  if (raw === undefined || typeof raw === "boolean") return raw;
  if (Array.isArray(raw)) return raw.map((text) => scalarValue(name, spec, text));
  return scalarValue(name, spec, raw);
}

function scalarValue(flag: string, spec: FlagSpec, text: string): unknown {
  switch (spec.type) {
    case "duration":
      try {
        return parseDuration(text, "s");
      } catch {
        throw badFlagValue({ flag, value: text, kind: "duration" });
      }
    case "int": {
      const min = spec.min ?? 1;
      const n = /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min) throw badFlagValue({ flag, value: text, kind: "int", min });
      return n;
    }
    case "address": {
      const address = listenAddress(text);
      if (!address) throw badFlagValue({ flag, value: text, kind: "address" });
      return address;
    }
    case "path":
      return expandHome(text, homedir());
    case "choice": {
      const choices = spec.choices ?? [];
      if (!choices.includes(text)) throw badFlagValue({ flag, value: text, kind: "choice", choices });
      return text;
    }
    default:
      return text;
  }
}

/** `[HOST:]PORT` -> host and port (a bare port binds 127.0.0.1); undefined when it is not one. */
export function listenAddress(text: string): ListenAddress | undefined {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port > 65535) return undefined;
  return { host: (match[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port };
}

function checkPositionals(rest: readonly string[], spec: PositionalSpec, where: string, hint: string): void {
  const [first] = rest;
  if (spec.choices && first !== undefined && !spec.choices.includes(first)) {
    const near = suggest(first, spec.choices);
    throw unknownSubcommand({ given: first, where, choices: spec.choices, near });
  }
  if (rest.length < spec.min) throw missingArgument({ where, usage: spec.usage, hint });
  if (rest.length > spec.max) {
    const extra = rest.slice(spec.max).map(quoted).join(" ");
    throw spec.max === 0
      ? noArgumentsTaken({ where, extra, hint })
      : unexpectedArguments({ where, usage: spec.usage, extra, hint });
  }
}

// (parseKeyValues lives in util/key-values.ts: parsing argv for help or --version does not load it.)
