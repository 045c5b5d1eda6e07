import type { CommandDeclaration } from "./command-spec.js";
import { GLOBAL_FLAGS } from "./global-flags.js";
import type { FlagSpec, Flags } from "./parse-arguments.js";

const INTRO = "mcp-bridge: the tools of any MCP server as native tools of an LLM agent";
const EXIT_CODES =
  "Exit codes: 0 success, 1 a server or tool failed, 2 bad usage or config, 130 interrupted (Ctrl-C).";

function flagLines(flags: Flags): string[] {
  const entries = Object.entries(flags) as [string, FlagSpec][];
  const left = entries.map(([name, spec]) => {
    const short = spec.short ? `-${spec.short}, ` : "    ";
    const value = spec.type === "boolean" ? "" : ` ${spec.value ?? "VALUE"}`;
    return `  ${short}--${name}${value}${spec.multiple ? " ..." : ""}`;
  });
  const width = Math.max(0, ...left.map((text) => text.length)) + 2;
  return entries.map(([, spec], index) => {
    const head = left[index] as string;
    return `${head}${" ".repeat(width - head.length)}${spec.description}`;
  });
}

/** `mcp-bridge --help`: every command with its one-line summary, and the global options. */
export function overviewHelp(commands: readonly CommandDeclaration[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const lines = commands.map((c) => `  ${c.name}${" ".repeat(width - c.name.length)}${c.summary}`);
  return `${INTRO}

Usage: mcp-bridge <command> [options]

Commands:
${lines.join("\n")}

Options (every command):
${flagLines(GLOBAL_FLAGS).join("\n")}

Run \`mcp-bridge help <command>\` (or \`mcp-bridge <command> --help\`) for a command's options and examples.
${EXIT_CODES}
`;
}

/** `mcp-bridge CMD --help`: usage, description, the command's own options, examples. */
export function commandHelp(spec: CommandDeclaration): string {
  const own = Object.keys(spec.flags).length ? flagLines(spec.flags).join("\n") : "  (none)";
  const usage = `mcp-bridge ${spec.name}${spec.positionals.usage ? ` ${spec.positionals.usage}` : ""}${Object.keys(spec.flags).length ? " [options]" : ""}`;
  const aliases = spec.aliases?.length ? `\nAlso: ${spec.aliases.join(", ")}\n` : "";
  return `Usage: ${usage}

${spec.summary}${spec.description ? `\n\n${spec.description}` : ""}
${aliases}
Options:
${own}

Global options:
${flagLines(GLOBAL_FLAGS).join("\n")}

Examples:
${spec.examples.map((example) => `  mcp-bridge ${example}`).join("\n")}

${EXIT_CODES}
`;
}
