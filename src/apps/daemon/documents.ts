import { toAnthropicTools } from "../../adapters/anthropic.js";
import { toOpenAITools } from "../../adapters/openai.js";
import type { Bridge, Progress, ToolEntry } from "../../bridge/api.js";
import { daemonUnknownServer } from "../../errors/daemon-errors.js";
import { ToolExecutionError } from "../../errors/index.js";
import { ownerUnavailable, serverNotFound } from "../../errors/server-errors.js";
import { ambiguousToolName, noConnectedTool } from "../../errors/tool-errors.js";
import { MIN_SERVER_PART_LENGTH, normalizeServerPart } from "../../registry/naming.js";
import type { ToolResult } from "../../results/tool-result.js";
import { suggest } from "../../util/suggest.js";
import {
  callFailure,
  callInterrupted,
  type Envelope,
  type PromptRequest,
  type ReadRequest,
  type ServerFilterRequest,
  type StatusRequest,
  type ToolsRequest,
} from "./protocol.js";

/**
 * The documents of the CLI's bridge commands, made from a running bridge: the same code answers the
 * CLI in-process and through the daemon, so both print the same thing.
 */

function checkServer(bridge: Bridge, server: string | undefined): void {
  if (server && !bridge.server(server)) throw daemonUnknownServer({ server });
}

/**
 * `--tag`: whether a server has any of the labels (every server without them). A daemon runs every
 * server, so the documents select by label themselves; in process the bridge started only these.
 */
function taggedWith(bridge: Bridge, tags: readonly string[] | undefined): (server: string) => boolean {
  if (tags === undefined || tags.length === 0) return () => true;
  const wanted = new Set(tags);
  const tagged = new Set(
    bridge.config.servers
      .filter((definition) => (definition.tags ?? []).some((tag) => wanted.has(tag)))
      .map((definition) => definition.name),
  );
  return (server) => tagged.has(server);
}

/** `Server "x" is not connected: ...` for each failed server: the commands' warnings. */
function failedServers(bridge: Bridge, selected: (server: string) => boolean = () => true): string[] {
  return bridge
    .servers()
    .filter((s) => s.state === "failed" && selected(s.name))
    .map((s) => `Server "${s.name}" is not connected: ${s.lastError?.message ?? "failed"}`);
}

type ServerStatus = ReturnType<Bridge["servers"]>[number];

/**
 * Whether the server runs now (`running`: connected or (re)connecting), was stopped after its idle
 * timeout (`idle`: it connected before) or was never started (`never started`: lazy, or listed from
 * the catalog cache and not used yet); null in the other states, which say it themselves.
 */
export function activityOf(status: ServerStatus): "running" | "idle" | "never started" | null {
  if (status.state === "connected" || status.state === "connecting" || status.state === "reconnecting")
    return "running";
  if (status.state !== "idle") return null;
  return status.connectMs === undefined ? "never started" : "idle";
}

/** `status`: one row per configured server; stderr tails and skipped tools are always included (the CLI drops them without --verbose). */
export function statusDocument(bridge: Bridge, request: StatusRequest = {}): Envelope {
  const selected = taggedWith(bridge, request.tags);
  const servers = bridge.servers().filter((s) => selected(s.name));
  // The tools the LLM sees (after include/exclude and other filters), as `tools` counts them.
  const exposed = (name: string) => bridge.tools({ server: name }).length;
  return {
    document: {
      servers: servers.map((s) => ({
        name: s.name,
        transport: s.transport,
        sandboxed: s.sandboxed,
        state: s.state,
        activity: activityOf(s),
        // A server not started yet whose tools the catalog cache lists: the tools it will have.
        tools: s.state === "connected" || s.catalog === "cache" ? exposed(s.name) : 0,
        protocolVersion: s.protocolVersion ?? null,
        serverInfo: s.serverInfo ?? null,
        startMs: s.connectMs ?? null,
        error: s.lastError ? { code: s.lastError.code, message: s.lastError.message } : null,
        stderr: request.verbose ? s.stderrTail : undefined,
        skippedTools: request.verbose ? (s.skippedTools ?? []) : undefined,
      })),
    },
    exitCode: servers.some((s) => s.state === "failed" || s.state === "invalid") ? 1 : 0,
    warnings: [],
  };
}

/** `tools` in every format, or one tool described. */
export function toolsDocument(bridge: Bridge, request: ToolsRequest): Envelope {
  checkServer(bridge, request.server);
  const selected = taggedWith(bridge, request.tags);
  const tools = bridge.tools({ server: request.server || undefined }).filter((t) => selected(t.server));
  const warnings = failedServers(bridge, selected);
  if (request.tool !== undefined) {
    const wanted = request.tool;
    const tool = tools.find((t) => t.name === wanted || `${t.server}/${t.tool}` === wanted);
    if (!tool) {
      const near = suggest(
        wanted,
        tools.map((t) => t.name),
      );
      throw noConnectedTool({ name: wanted, near });
    }
    const { name, server, tool: original, description, inputSchema } = tool;
    return {
      document: { tool: { name, server, tool: original, description, inputSchema } },
      exitCode: 0,
      warnings: [],
    };
  }
  const exitCode = warnings.length > 0 ? 1 : 0;
  if (request.format === "openai") return { document: toOpenAITools(tools), exitCode, warnings };
  if (request.format === "anthropic") return { document: toAnthropicTools(tools), exitCode, warnings };
  return {
    document: {
      tools: tools.map((t) => ({
        name: t.name,
        server: t.server,
        tool: t.tool,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
    },
    exitCode,
    warnings,
    complete: request.format === "table" ? tools.map(fitsSignature) : undefined,
  };
}

/**
 * Whether the table's signature (top-level properties only) says all of a tool's parameters: not when
 * the flat list is incomplete, nor when it lists a nested object's fields (the table adds `(+schema)`).
 */
function fitsSignature(tool: ToolEntry): boolean {
  const flat = tool.flatParameters();
  return flat.complete && flat.parameters.every((parameter) => parameter.path === undefined);
}

export interface Owners {
  /** The configured server names. */
  readonly servers: readonly string[];
  /** Servers to start; undefined means all of them. */
  readonly only?: string[];
  /** Set when TOOL is `server/tool` and no configured server has that name. */
  readonly unknownServer?: string;
  /** The name to call when TOOL was written otherwise: `server.tool` (mcporter's form) is `server/tool`. */
  readonly target?: string;
}

/**
 * The servers that can own TOOL: `server/tool` names its server; an exposed name can only belong to
 * servers whose name prefix it carries. Pure.
 */
/**
 * Every server the config names, loaded or not: a server left out (it needs a VS Code input not yet
 * answered, a variable not set, a bad field) is still the user's, so looking it up by name must find
 * it and then say why it is not running, never "No server named".
 */
export function writtenServerNames(config: {
  readonly servers: readonly { readonly name: string }[];
  readonly skipped: readonly { readonly name: string }[];
}): string[] {
  return [...new Set([...config.servers, ...config.skipped].map((server) => server.name))];
}

export function owningServers(name: string, servers: readonly string[], toolNameFormat: string): Owners {
  // `server.tool`: the longest configured server name followed by a dot (exposed names have none).
  if (!name.includes("/")) {
    const dotted = servers
      .filter((server) => name.startsWith(`${server}.`) && name.length > server.length + 1)
      .sort((a, b) => b.length - a.length)[0];
    if (dotted) return { servers, only: [dotted], target: `${dotted}/${name.slice(dotted.length + 1)}` };
  }
  const bySlash = servers.filter((server) => name.startsWith(`${server}/`));
  if (bySlash.length > 0) return { servers, only: bySlash };
  // Exposed names never contain "/", so a slash means `server/tool` with a server that does not exist.
  const slash = name.indexOf("/");
  if (slash > 0) return { servers, unknownServer: name.slice(0, slash) };
  const [before] = toolNameFormat.split("{tool}");
  if (before === undefined || !before.includes("{server}")) return { servers };
  const prefix = (server: string, length = Number.POSITIVE_INFINITY) =>
    before.replaceAll("{server}", () => normalizeServerPart(server).slice(0, length));
  let matching = servers.filter((server) => name.startsWith(prefix(server)));
  // A name too long for 64 characters keeps at least the first MIN_SERVER_PART_LENGTH characters of its server.
  if (matching.length === 0)
    matching = servers.filter((server) => name.startsWith(prefix(server, MIN_SERVER_PART_LENGTH)));
  return matching.length > 0 ? { servers, only: matching } : { servers };
}

export interface CallInput {
  readonly name: string;
  /** The arguments, already converted by the tool's schema (see `argumentsFor`). */
  readonly args: (inputSchema: unknown, tool: string) => Record<string, unknown>;
  readonly timeout?: number;
  readonly maxResultChars?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

function callResult(
  name: string,
  target: { server: string; tool: string } | undefined,
  result: ToolResult,
): Envelope {
  return {
    document: {
      name,
      server: target?.server ?? null,
      tool: target?.tool ?? null,
      isError: result.isError,
      text: result.text,
      content: result.content,
      structuredContent: result.structuredContent ?? null,
    },
    exitCode: result.isError ? 1 : 0,
    warnings: [],
  };
}

/** `server/tool` naming a server the config does not have: the call fails before anything starts. */
export function unknownServerFailure(name: string, owners: Owners): Envelope | undefined {
  if (owners.unknownServer === undefined) return undefined;
  return callFailure(name, serverNotFound({ server: owners.unknownServer, configured: owners.servers }));
}

/** Calls TOOL on a bridge that runs (at least) the servers in `owners.only`. */
export async function callDocument(bridge: Bridge, input: CallInput, owners: Owners): Promise<Envelope> {
  const { name } = input;
  const unknown = unknownServerFailure(name, owners);
  if (unknown) return unknown;
  if (input.signal?.aborted) return callInterrupted(name);
  let callName = owners.target ?? name;
  let target = bridge.resolve(callName);
  if (!target) {
    // A bare tool name (`read_text_file`) names the one server's tool that has it.
    const same = bridge.tools().filter((tool) => tool.tool === callName);
    if (same.length > 1)
      return callFailure(
        name,
        ambiguousToolName({
          name: callName,
          candidates: same.map((tool) => `${tool.server}/${tool.tool}`),
          tool: name,
        }),
      );
    const [only] = same;
    if (only) {
      callName = `${only.server}/${only.tool}`;
      target = { server: only.server, tool: only.tool };
    }
  }
  if (!target) {
    // The tool is unknown because the server that would own it is down: say that, not "unknown tool".
    const down = (owners.only ?? [])
      .map((server) => bridge.server(server))
      .find((s) => s?.state === "failed" || s?.state === "invalid");
    if (down)
      return callFailure(
        name,
        ownerUnavailable({ server: down.name, name, reason: down.lastError?.message }),
      );
  }
  const tools = bridge.tools();
  // `server/tool` resolves by its words alone: whether the server has that tool is checked here.
  const listed = target && tools.some((tool) => tool.server === target?.server && tool.tool === target.tool);
  if (!listed) {
    const near = suggest(callName, [
      ...tools.map((tool) => tool.name),
      ...tools.map((tool) => `${tool.server}/${tool.tool}`),
      ...new Set(tools.map((tool) => tool.tool)),
    ]);
    if (near !== undefined) return callFailure(name, noConnectedTool({ name, near }));
  }
  const found = target;
  const schema = found
    ? bridge.tools({ server: found.server }).find((tool) => tool.tool === found.tool)?.inputSchema
    : undefined;
  let args: Record<string, unknown>;
  try {
    args = input.args(schema, target?.tool ?? name);
  } catch (error) {
    return callFailure(name, error);
  }
  try {
    const result = await bridge.call(callName, args, {
      onError: "throw",
      onProgress: input.onProgress,
      timeout: input.timeout,
      maxResultChars: input.maxResultChars,
      signal: input.signal,
    });
    return callResult(name, target, result);
  } catch (error) {
    if (input.signal?.aborted) return callInterrupted(name);
    // The tool ran and said it failed: that is a tool result to show, not a call that failed.
    if (error instanceof ToolExecutionError && error.result !== undefined)
      return callResult(name, target, error.result as ToolResult);
    return callFailure(name, error);
  }
}

export async function resourcesDocument(bridge: Bridge, request: ServerFilterRequest): Promise<Envelope> {
  checkServer(bridge, request.server);
  const filter = { server: request.server || undefined };
  const [resources, templates] = await Promise.all([
    bridge.resources(filter),
    bridge.resourceTemplates(filter),
  ]);
  const warnings = failedServers(bridge);
  return { document: { resources, templates }, exitCode: warnings.length > 0 ? 1 : 0, warnings };
}

export async function readDocument(
  bridge: Bridge,
  request: ReadRequest,
  signal?: AbortSignal,
): Promise<Envelope> {
  checkServer(bridge, request.server);
  const content = await bridge.readResource(request.uri, {
    server: request.server || undefined,
    timeout: request.timeout,
    maxResultChars: request.maxResultChars,
    signal,
  });
  return {
    document: {
      server: content.server,
      uri: content.uri,
      text: content.text,
      parts: content.parts.map(({ bytes: _bytes, ...part }) => part),
      truncated: content.truncated || undefined,
    },
    exitCode: 0,
    warnings: [],
  };
}

export async function promptsDocument(bridge: Bridge, request: ServerFilterRequest): Promise<Envelope> {
  checkServer(bridge, request.server);
  const prompts = await bridge.prompts({ server: request.server || undefined });
  const warnings = failedServers(bridge);
  return { document: { prompts }, exitCode: warnings.length > 0 ? 1 : 0, warnings };
}

export async function promptDocument(
  bridge: Bridge,
  request: PromptRequest,
  signal?: AbortSignal,
): Promise<Envelope> {
  const messages = await bridge.getPrompt(request.name, request.args, {
    server: request.server || undefined,
    timeout: request.timeout,
    maxResultChars: request.maxResultChars,
    signal,
  });
  return { document: messages, exitCode: 0, warnings: [] };
}
