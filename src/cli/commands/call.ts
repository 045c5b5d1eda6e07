import { loadConfig } from "../../config/load.js";
import { isMcpBridgeError } from "../../errors.js";
import { normalizeServerPart } from "../../registry/naming.js";
import type { ToolResult } from "../../results/types.js";
import { parseDuration } from "../../util/duration.js";
import { parseKeyValues, usageError } from "../args.js";
import { type CommandContext, chooseConfig, openBridge } from "../context.js";
import { writeJson } from "../output.js";

/** `mcp-bridge call TOOL [key=value ...]`: starts only the server that owns TOOL. */
export async function callCommand(context: CommandContext): Promise<number> {
  const [name, ...pairs] = context.positionals;
  if (!name)
    throw usageError("Usage: mcp-bridge call TOOL [key=value ...] [--args JSON] [--timeout DURATION]");
  const args = { ...parseJsonArgs(context.options.args), ...parseKeyValues(pairs) };
  let timeout: number | undefined;
  if (context.options.timeout !== undefined) {
    try {
      timeout = parseDuration(String(context.options.timeout), "s");
    } catch (error) {
      throw usageError(`--timeout ${(error as Error).message}`);
    }
  }
  const only = await owningServers(context, name);
  const bridge = await openBridge(context, only ? { only } : {});
  try {
    const target = bridge.resolve(name);
    let result: ToolResult;
    try {
      result = await bridge.call(name, args, {
        onError: "throw",
        ...(timeout === undefined ? {} : { timeout }),
      });
    } catch (error) {
      const toolResult = (error as { result?: ToolResult }).result;
      if (toolResult) return report(context, name, target, toolResult);
      const code = isMcpBridgeError(error) ? error.code : "ERROR";
      const message = error instanceof Error ? error.message : String(error);
      if (context.global.json) writeJson(context.io, { name, isError: true, error: { code, message } });
      else context.io.stderr.write(`${context.errStyle.red("error:")} ${message}\n`);
      return 1;
    }
    return report(context, name, target, result);
  } finally {
    await bridge.close();
  }
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
    context.io.stderr.write(`${context.errStyle.red("tool error:")} ${result.text}\n`);
  } else {
    context.io.stdout.write(result.text.endsWith("\n") ? result.text : `${result.text}\n`);
  }
  return result.isError ? 1 : 0;
}

function parseJsonArgs(value: string | boolean | undefined): Record<string, unknown> {
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

/**
 * The servers that can own TOOL, so only they are started: `server/tool` names its server; an exposed
 * name can only belong to servers whose name prefix it carries. Undefined means "start them all".
 */
async function owningServers(context: CommandContext, name: string): Promise<string[] | undefined> {
  const config = chooseConfig({ ...context, global: { ...context.global, quiet: true } });
  const resolved = await loadConfig({
    ...(config ? { path: config } : {}),
    cwd: context.io.cwd,
    env: context.io.env,
  });
  const names = resolved.servers.map((server) => server.name);
  const bySlash = names.filter((server) => name.startsWith(`${server}/`));
  if (bySlash.length > 0) return bySlash;
  const [before] = resolved.settings.toolNameFormat.split("{tool}");
  if (before === undefined || !before.includes("{server}")) return undefined;
  const matching = names.filter((server) =>
    name.startsWith(before.replaceAll("{server}", () => normalizeServerPart(server))),
  );
  return matching.length > 0 ? matching : undefined;
}
