import type { BridgeOptions, Progress } from "../../bridge/types.js";
import { loadConfig } from "../../config/load.js";
import {
  ErrorCode,
  errorMessages,
  isMcpBridgeError,
  ServerConnectionError,
  ToolExecutionError,
} from "../../errors.js";
import { MIN_SERVER_PART_LENGTH, normalizeServerPart } from "../../registry/naming.js";
import type { ToolResult } from "../../results/types.js";
import { parseDuration } from "../../util/duration.js";
import { plainText } from "../../util/plain-text.js";
import { errorText } from "../../util/text-of.js";
import { parseKeyValues, parseKeyValuesFor, usageError } from "../args.js";
import { defineCommand, TIMEOUT_FLAG } from "../command.js";
import { type CommandContext, cliBridgeOptions, loadOptionsFor, startWithProgress } from "../context.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

/** `mcp-bridge call TOOL [key=value ...]`: starts only the server that owns TOOL. */
async function runCall(context: CommandContext): Promise<number> {
  const [name, ...pairs] = context.positionals;
  if (!name)
    throw usageError("Usage: mcp-bridge call TOOL [key=value ...] [--args JSON] [--timeout DURATION]");
  const jsonArgs = parseJsonArgs(context.options.args);
  // Checked before anything starts; converted by the tool's schema once it is known.
  parseKeyValues(pairs);
  const maxResultChars = maxCharsOption(context.options["max-chars"], context.options.full);
  let timeout: number | undefined;
  if (context.options.timeout !== undefined) {
    try {
      timeout = parseDuration(String(context.options.timeout), "s");
    } catch (error) {
      throw usageError(`--timeout ${(error as Error).message}`);
    }
  }
  // Consent first: even finding the owning server reads (and expands) the project's definitions.
  const options = await cliBridgeOptions(context);
  const owners = await owningServers(context, name, options);
  if (owners.unknownServer !== undefined) {
    return fail(
      context,
      name,
      new ServerConnectionError(
        ErrorCode.ServerNotFound,
        errorMessages.serverNotFound(owners.unknownServer, owners.servers),
        { server: owners.unknownServer },
      ),
    );
  }
  const only = owners.only;
  const bridge = await startWithProgress(context, { ...options, ...(only ? { only } : {}) });
  try {
    if (context.io.signal?.aborted) return interrupted(context, name);
    const target = bridge.resolve(name);
    if (!target) {
      // The tool is unknown because the server that would own it is down: say that, not "unknown tool".
      const down = (only ?? []).map((server) => bridge.server(server)).find((s) => s?.state === "failed");
      if (down)
        return fail(
          context,
          name,
          new ServerConnectionError(
            ErrorCode.ServerUnavailable,
            errorMessages.ownerUnavailable(down.name, name, down.lastError?.message),
            { server: down.name },
          ),
        );
    }
    const schema = target
      ? bridge.tools({ server: target.server }).find((tool) => tool.tool === target.tool)?.inputSchema
      : undefined;
    const args = { ...jsonArgs, ...parseKeyValuesFor(pairs, schema) };
    let result: ToolResult;
    try {
      result = await bridge.call(name, args, {
        onError: "throw",
        // Live status of long calls (task tools' status messages, progress notifications) on stderr.
        ...(context.global.quiet
          ? {}
          : {
              onProgress: (progress: Progress) => {
                const amount =
                  progress.total === undefined
                    ? `${progress.progress}`
                    : `${progress.progress}/${progress.total}`;
                // Messages always; bare counters only on a terminal, where they are live feedback.
                if (progress.message)
                  context.io.stderr.write(
                    `${context.errStyle.dim(`… ${amount}`)} ${plainText(progress.message, 500)}\n`,
                  );
                else if (context.io.stderr.isTTY)
                  context.io.stderr.write(`${context.errStyle.dim(`… ${amount}`)}\n`);
              },
            }),
        ...(timeout === undefined ? {} : { timeout }),
        ...(maxResultChars === undefined ? {} : { maxResultChars }),
        ...(context.io.signal ? { signal: context.io.signal } : {}),
      });
    } catch (error) {
      if (context.io.signal?.aborted) return interrupted(context, name);
      // The tool ran and said it failed: that is a tool result to show, not a call that failed.
      if (error instanceof ToolExecutionError && error.result !== undefined)
        return report(context, name, target, error.result as ToolResult);
      return fail(context, name, error);
    }
    return report(context, name, target, result);
  } finally {
    await bridge.close();
  }
}

/**
 * Ctrl-C (or SIGTERM) while the call ran: the call was cancelled by us. Saying anything else (the server
 * stopped, retry) would send the user after a failure that did not happen. Exit 130 like a shell.
 */
function interrupted(context: CommandContext, name: string): number {
  const message = `Interrupted: the call of "${name}" was cancelled; the server may have done part of the work.`;
  if (context.global.json)
    writeJson(context.io, { name, isError: true, error: { code: ErrorCode.Aborted, message } });
  else context.io.stderr.write(`${terminalText(message)}\n`);
  return 130;
}

/** A call that produced no tool result (unknown tool, server down, timeout): exit 1. */
function fail(context: CommandContext, name: string, error: unknown): number {
  const code = isMcpBridgeError(error) ? error.code : "ERROR";
  const message = errorText(error);
  if (context.global.json) writeJson(context.io, { name, isError: true, error: { code, message } });
  else context.io.stderr.write(`${context.errStyle.red("error:")} ${terminalText(message)}\n`);
  return 1;
}

function report(
  context: CommandContext,
  name: string,
  target: { server: string; tool: string } | undefined,
  result: ToolResult,
): number {
  if (context.global.json) {
    writeJson(context.io, {
      name,
      server: target?.server ?? null,
      tool: target?.tool ?? null,
      isError: result.isError,
      text: result.text,
      content: result.content,
      structuredContent: result.structuredContent ?? null,
    });
  } else if (result.isError) {
    const text = context.io.stderr.isTTY ? terminalText(result.text) : result.text;
    context.io.stderr.write(`${context.errStyle.red("tool error:")} ${text}\n`);
  } else {
    // A terminal gets the result without control characters; a pipe or file gets it byte for byte.
    const text = context.io.stdout.isTTY ? terminalText(result.text) : result.text;
    context.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  return result.isError ? 1 : 0;
}

/** --max-chars N (a positive integer) or --full (no limit); undefined: the config's limit. */
function maxCharsOption(value: unknown, full: unknown): number | undefined {
  if (full === true) {
    if (value !== undefined) throw usageError("Give --max-chars or --full, not both");
    return Number.MAX_SAFE_INTEGER;
  }
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1)
    throw usageError(
      `--max-chars must be a whole number of characters (1 or more), got ${JSON.stringify(value)}`,
    );
  return n;
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
  throw usageError(`--args must be a JSON object, got: ${value}`);
}

interface Owners {
  /** The configured server names. */
  readonly servers: readonly string[];
  /** Servers to start; undefined means all of them. */
  readonly only?: string[];
  /** Set when TOOL is `server/tool` and no configured server has that name. */
  readonly unknownServer?: string;
}

/**
 * The servers that can own TOOL, so only they are started: `server/tool` names its server; an exposed
 * name can only belong to servers whose name prefix it carries.
 */
async function owningServers(context: CommandContext, name: string, options: BridgeOptions): Promise<Owners> {
  const resolved = await loadConfig(
    loadOptionsFor(context, {
      ...(options.config ? { path: options.config } : {}),
      ...(options.admitProjectServer ? { admitProjectServer: options.admitProjectServer } : {}),
    }),
  );
  const servers = resolved.servers.map((server) => server.name);
  const bySlash = servers.filter((server) => name.startsWith(`${server}/`));
  if (bySlash.length > 0) return { servers, only: bySlash };
  // Exposed names never contain "/", so a slash means `server/tool` with a server that does not exist.
  const slash = name.indexOf("/");
  if (slash > 0) return { servers, unknownServer: name.slice(0, slash) };
  const [before] = resolved.settings.toolNameFormat.split("{tool}");
  if (before === undefined || !before.includes("{server}")) return { servers };
  const prefix = (server: string, length = Number.POSITIVE_INFINITY) =>
    before.replaceAll("{server}", () => normalizeServerPart(server).slice(0, length));
  let matching = servers.filter((server) => name.startsWith(prefix(server)));
  // A name too long for 64 characters keeps at least the first MIN_SERVER_PART_LENGTH characters of its server.
  if (matching.length === 0)
    matching = servers.filter((server) => name.startsWith(prefix(server, MIN_SERVER_PART_LENGTH)));
  return matching.length > 0 ? { servers, only: matching } : { servers };
}

export const callCommand = defineCommand({
  name: "call",
  summary: "call a tool by exposed name (mcp_calc_add) or server/tool",
  flags: {
    args: {
      type: "string",
      value: "JSON",
      description: "the arguments as one JSON object (key=value pairs are merged over it)",
    },
    timeout: TIMEOUT_FLAG,
    "max-chars": {
      type: "string",
      value: "N",
      description: "print up to N characters of the result (default: the config's maxResultChars)",
    },
    full: { type: "boolean", description: "print the whole result, however long" },
  },
  description:
    'key=value values are converted by the tool\'s inputSchema: a string parameter gets the text as written (id=5 is "5"), a number or boolean parameter the parsed value. Progress notifications are shown on stderr.',
  positionals: { usage: "TOOL [key=value ...]", min: 1, max: Number.POSITIVE_INFINITY },
  examples: [
    "call mcp_calc_add a=2 b=3",
    'call calc/add --args \'{"a":2,"b":3}\'',
    "call slow/work --timeout 2m --json",
    "call docs/fetch url=https://example.com --full",
  ],
  run: runCall,
});
