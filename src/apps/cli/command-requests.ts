import { definedOnly } from "../../util/defined.js";
import { parseKeyValues } from "../../util/key-values.js";
import { splitCallExpression } from "./call-syntax.js";
import type { CommandContext } from "./command-context.js";
import { argsNotJsonObject, commandUsage, conflictingFlags } from "./usage-errors.js";

/**
 * What the bridge commands ask, from their command line (flags already typed by their declarations):
 * the same request goes to a daemon or is answered in process. Usage errors are thrown here, before
 * anything starts. Loads nothing of the bridge.
 */

export type DaemonCommand = "call" | "tools" | "status" | "resources" | "read" | "prompts" | "prompt";

export interface Asked {
  readonly operation: DaemonCommand;
  readonly body: Record<string, unknown>;
}

/** --max-chars N or --full (no limit); undefined: the config's limit. */
function maxResultChars(context: CommandContext): number | undefined {
  const { "max-chars": maxChars, full } = context.options as { "max-chars"?: number; full?: boolean };
  if (full === true && maxChars !== undefined) throw conflictingFlags({ flags: ["max-chars", "full"] });
  return full === true ? Number.MAX_SAFE_INTEGER : maxChars;
}

function parseJsonArgs(value: unknown): Record<string, unknown> {
  if (typeof value !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw argsNotJsonObject({ value });
}

/**
 * The request a command line makes. Its body is a wire message (to the daemon) and stands for the
 * `--json` document's fields: options not given are absent, not `undefined`.
 */
export function askedBy(command: DaemonCommand, context: CommandContext): Asked {
  return { operation: command, body: definedOnly(requestBody(command, context)) };
}

function requestBody(command: DaemonCommand, context: CommandContext): Record<string, unknown> {
  const server = context.options.server as string | undefined;
  const timeout = context.options.timeout as number | undefined;
  const tags = context.options.tag as string[] | undefined;
  switch (command) {
    case "call": {
      const [word, ...typed] = context.positionals;
      if (!word) throw commandUsage("call TOOL [key=value ...] [--args JSON] [--timeout DURATION]");
      // `server.tool(a: 1, b: "x")`: the arguments in parentheses come before those typed after it.
      const { name, pairs: inline } = splitCallExpression(word);
      const pairs = [...inline, ...typed];
      const args = parseJsonArgs(context.options.args);
      // Checked before anything starts; converted by the tool's schema once it is known.
      parseKeyValues(pairs);
      const maxChars = maxResultChars(context);
      return { name, pairs, args, timeout, maxResultChars: maxChars, progress: !context.global.quiet };
    }
    case "tools": {
      const format =
        (context.options.format as string | undefined) ?? (context.global.json ? "json" : "table");
      return { server, tags, format, tool: context.positionals[0] };
    }
    case "status":
      return { verbose: context.global.verbose, tags };
    case "resources":
    case "prompts":
      return { server };
    case "read": {
      const [uri] = context.positionals;
      if (!uri) throw commandUsage("read URI [--server NAME] [--timeout DURATION]");
      return { uri, server, timeout, maxResultChars: maxResultChars(context) };
    }
    case "prompt": {
      const [name, ...pairs] = context.positionals;
      if (!name) throw commandUsage("prompt NAME [key=value ...] [--server NAME]");
      // Prompt arguments are strings: `n=5` stays "5".
      const args = Object.fromEntries(
        Object.entries(parseKeyValues(pairs)).map(([key, value]) => [
          key,
          typeof value === "string" ? value : JSON.stringify(value),
        ]),
      );
      return { name, args, server, timeout, maxResultChars: maxResultChars(context) };
    }
  }
}
