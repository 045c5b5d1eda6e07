import { SERVER_FLAG, TAG_FLAG, TIMEOUT_FLAG } from "./command-spec.js";
import type { Flags, PositionalSpec } from "./parse-arguments.js";

/**
 * The flags and positionals of the commands a daemon can answer, apart from their implementations:
 * the CLI's daemon path parses a command line with these without loading the bridge.
 */

export const NO_DAEMON_FLAG = {
  type: "boolean",
  description: "run the servers in this process even when a daemon for the config is running",
} as const;

/**
 * Servers given on the command line. Alone they are the only servers (no config file is read); with
 * --config they are added to the file's.
 */
export const AD_HOC_FLAGS = {
  stdio: {
    type: "string",
    multiple: true,
    value: '"CMD ARGS"',
    description:
      "a stdio server to use: its command line, quoted (split like a shell would, never run by one)",
  },
  http: { type: "string", multiple: true, value: "URL", description: "a Streamable HTTP server to use" },
  "http-url": {
    type: "string",
    multiple: true,
    value: "URL",
    description: "the same as --http (mcporter's name)",
  },
  name: {
    type: "string",
    multiple: true,
    value: "NAME",
    description: "names for the --stdio/--http servers, in order (default: from the command or host)",
  },
} as const satisfies Flags;

/** `--max-chars N` / `--full`: how much of a result, resource or prompt to print. */
export const LENGTH_FLAGS = {
  "max-chars": {
    type: "int",
    value: "N",
    description: "print up to N characters of the result (default: the config's maxResultChars)",
  },
  full: { type: "boolean", description: "print the whole result, however long" },
} as const satisfies Flags;

export const CALL_FLAGS = {
  args: {
    type: "string",
    value: "JSON",
    description: "the arguments as one JSON object (key=value pairs are merged over it)",
  },
  timeout: TIMEOUT_FLAG,
  ...LENGTH_FLAGS,
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const CALL_POSITIONALS: PositionalSpec = {
  usage: "TOOL [key=value ...]",
  min: 1,
  max: Number.POSITIVE_INFINITY,
};

export const TOOLS_FLAGS = {
  server: SERVER_FLAG,
  tag: TAG_FLAG,
  format: {
    type: "choice",
    choices: ["table", "json", "openai", "anthropic"],
    short: "f",
    value: "FORMAT",
    description: "table (default), json, openai or anthropic",
  },
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const TOOLS_POSITIONALS: PositionalSpec = { usage: "[TOOL]", min: 0, max: 1 };

export const STATUS_FLAGS = {
  tag: TAG_FLAG,
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const STATUS_POSITIONALS: PositionalSpec = { usage: "", min: 0, max: 0 };

export const RESOURCES_FLAGS = {
  server: SERVER_FLAG,
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const RESOURCES_POSITIONALS: PositionalSpec = { usage: "", min: 0, max: 0 };

export const READ_FLAGS = {
  server: SERVER_FLAG,
  timeout: TIMEOUT_FLAG,
  ...LENGTH_FLAGS,
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const READ_POSITIONALS: PositionalSpec = { usage: "URI", min: 1, max: 1 };

export const PROMPTS_FLAGS = {
  server: SERVER_FLAG,
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const PROMPTS_POSITIONALS: PositionalSpec = { usage: "", min: 0, max: 0 };

export const PROMPT_FLAGS = {
  server: SERVER_FLAG,
  timeout: TIMEOUT_FLAG,
  ...LENGTH_FLAGS,
  "no-daemon": NO_DAEMON_FLAG,
  ...AD_HOC_FLAGS,
} as const satisfies Flags;
export const PROMPT_POSITIONALS: PositionalSpec = {
  usage: "NAME [key=value ...]",
  min: 1,
  max: Number.POSITIVE_INFINITY,
};
