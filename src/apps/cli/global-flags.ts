import type { Flags } from "./parse-arguments.js";

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
