import { parseArgs } from "node:util";
import { ErrorCode, McpBridgeError } from "../errors.js";

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

export interface ParsedCommandLine {
  readonly command?: string;
  readonly positionals: string[];
  readonly global: GlobalOptions;
  readonly options: Record<string, string | boolean | undefined>;
}

const GLOBAL = {
  config: { type: "string", short: "c" },
  json: { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
  "no-color": { type: "boolean" },
  "trust-project": { type: "boolean" },
} as const;

const COMMAND_OPTIONS = {
  server: { type: "string", short: "s" },
  format: { type: "string", short: "f" },
  args: { type: "string" },
  timeout: { type: "string", short: "t" },
  from: { type: "string" },
  model: { type: "string", short: "m" },
  provider: { type: "string" },
  "base-url": { type: "string" },
  system: { type: "string" },
  print: { type: "string", short: "p" },
  yes: { type: "boolean", short: "y" },
} as const;

export function usageError(message: string): McpBridgeError {
  return new McpBridgeError(ErrorCode.Usage, message);
}

export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof GLOBAL & typeof COMMAND_OPTIONS; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...GLOBAL, ...COMMAND_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = (error as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, "");
    throw usageError(`${message} Run \`mcp-bridge --help\` for the options.`);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  return {
    ...(command === undefined ? {} : { command }),
    positionals: rest,
    global: {
      ...(values.config === undefined ? {} : { config: values.config }),
      json: values.json ?? false,
      quiet: values.quiet ?? false,
      verbose: values.verbose ?? false,
      help: values.help ?? false,
      version: values.version ?? false,
      ...(values["no-color"] ? { color: false } : {}),
      trustProject: values["trust-project"] ?? false,
    },
    options: Object.fromEntries(
      Object.keys(COMMAND_OPTIONS).map((key) => [key, values[key as keyof typeof values]]),
    ),
  };
}

/**
 * `key=value` arguments: the value is JSON when it parses as JSON (`a=5` is 5, `flag=true` a boolean,
 * `s="5"` the string "5"), otherwise the text itself.
 */
export function parseKeyValues(pairs: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const index = pair.indexOf("=");
    if (index <= 0) throw usageError(`Expected key=value, got "${pair}"`);
    const key = pair.slice(0, index);
    const raw = pair.slice(index + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: keep the text
    }
    result[key] = value;
  }
  return result;
}
