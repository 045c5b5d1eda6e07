import type { LogFields, Logger } from "../../util/logger.js";
import { withoutStderrHint } from "../../util/stderr-hint.js";
import type { CliIO } from "./cli-io.js";
import { type Style, styleFor } from "./output.js";
import type { AnyFlagValue, Flags, GlobalOptions, ParsedArguments } from "./parse-arguments.js";
import { spinnerLineClear } from "./progress-pause.js";
import { terminalText } from "./terminal.js";

/** A command's flag values when its declaration's types are not at hand. */
export type AnyOptions = Record<string, AnyFlagValue | undefined>;

export interface CommandContext<O = AnyOptions> {
  readonly io: CliIO;
  readonly global: GlobalOptions;
  /** The command's own flags, typed from its declaration. */
  readonly options: O;
  readonly positionals: readonly string[];
  /** How many positionals came before a `--`, if one was given. */
  readonly terminatorAt?: number;
  readonly style: Style;
  readonly errStyle: Style;
  readonly logger: Logger;
}

export function createContext<O>(
  io: CliIO,
  parsed: ParsedArguments<Flags> & { options: O },
): CommandContext<O> {
  const { global } = parsed;
  return {
    io,
    global,
    options: parsed.options,
    positionals: parsed.positionals,
    terminatorAt: parsed.terminatorAt,
    style: styleFor(io.stdout, io.env, global.color),
    errStyle: styleFor(io.stderr, io.env, global.color),
    logger: stderrLogger(io, global),
  };
}

/** Diagnostics on stderr: warnings and errors by default, everything with --verbose, errors with --quiet. */
function stderrLogger(io: CliIO, global: GlobalOptions): Logger {
  const style = styleFor(io.stderr, io.env, global.color);
  const write = (label: string, message: string, fields?: LogFields) => {
    const detail = global.verbose && fields ? ` ${JSON.stringify(fields)}` : "";
    // A server's own stderr lines only with --verbose.
    const text = global.verbose ? message : withoutStderrHint(message);
    // On the spinner's line, the message starts on a cleared line (the spinner redraws below it).
    io.stderr.write(`${spinnerLineClear(io.stderr)}${label} ${terminalText(text)}${terminalText(detail)}\n`);
  };
  return {
    debug: (m, f) => global.verbose && write(style.dim("debug:"), m, f),
    info: (m, f) => global.verbose && write(style.dim("info:"), m, f),
    warn: (m, f) => !global.quiet && write(style.yellow("warning:"), m, f),
    error: (m, f) => write(style.red("error:"), m, f),
  };
}
