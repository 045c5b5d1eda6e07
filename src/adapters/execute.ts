import type { Bridge, CallOptions, ToolEntry } from "../bridge/types.js";
import { missingToolName, unknownTool, unreadableArguments } from "../errors/index.js";
import type { ToolDefinition } from "../registry/types.js";
import { errorToolResult, textForModel } from "../results/convert.js";
import type { ToolResult } from "../results/types.js";
import { fromOpenAIStrictArguments } from "./openai.js";
import { findTool } from "./resolve-call.js";

/** A tool call as in an OpenAI Chat Completions assistant message (`message.tool_calls[]`). */
export interface OpenAIToolCall {
  readonly id: string;
  readonly type?: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A `tool_use` block of an Anthropic Messages API response. */
export interface AnthropicToolUse {
  readonly type: "tool_use";
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

export interface OpenAIToolMessage {
  readonly role: "tool";
  readonly tool_call_id: string;
  readonly content: string;
}

export interface AnthropicToolResultBlock {
  readonly type: "tool_result";
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error: boolean;
}

export interface ExecuteOptions extends Omit<CallOptions, "onError"> {
  /**
   * The tools were exported with `toOpenAITools(entries, { strict: true })`: `null` for an argument
   * that was optional means "not given" and is removed before the call. Needs `bridge.tool`.
   */
  readonly strict?: boolean;
  /** Maps arguments before the call (after the strict-mode mapping). */
  readonly mapArguments?: (name: string, args: Record<string, unknown>) => Record<string, unknown>;
  /**
   * The tools offered to the model. Given, a call runs only the offered tool its name resolves to
   * (exposed name, or `server/tool`, `server.tool`, `server:tool`), exactly that one; any other name
   * is refused without running anything.
   */
  readonly tools?: readonly ToolEntry[];
  /**
   * Asked with the resolved tool (needs `tools`) before it runs; `false` refuses the call. The
   * decision is on the tool that then runs, whatever the model's spelling of its name.
   */
  readonly approve?: (entry: ToolEntry) => boolean | Promise<boolean>;
}

/** Anything that calls tools by exposed name: a Bridge, or a host's own wrapper around one. */
type Caller = Pick<Bridge, "call"> & {
  /** Only needed for `strict`: the exported definition of a tool by exposed name. */
  readonly tool?: (name: string) => Pick<ToolDefinition, "inputSchema"> | undefined;
};

/**
 * Runs the model's tool calls concurrently and returns the messages to send back. Never throws for a
 * failed tool: failures (bad JSON arguments included) become error results the LLM can read.
 */
export function executeOpenAIToolCalls(
  bridge: Caller,
  calls: readonly OpenAIToolCall[],
  options: ExecuteOptions = {},
): Promise<OpenAIToolMessage[]> {
  return Promise.all(
    calls.map(async (call) => {
      const result = await executeToolCall(bridge, call.function?.name, call.function?.arguments, options);
      // Chat Completions has no error flag on tool messages: the text itself must say it failed.
      return { role: "tool" as const, tool_call_id: call.id, content: textForModel(result) };
    }),
  );
}

export function executeAnthropicToolUses(
  bridge: Caller,
  blocks: readonly { readonly type: string }[],
  options: ExecuteOptions = {},
): Promise<AnthropicToolResultBlock[]> {
  const uses = blocks.filter((block): block is AnthropicToolUse => block.type === "tool_use");
  return Promise.all(
    uses.map(async (use) => {
      // Anthropic sends `input` as an object; anything else (a string included) is malformed.
      const input = typeof use.input === "object" ? use.input : null;
      const result = await executeToolCall(bridge, use.name, input, options);
      return {
        type: "tool_result" as const,
        tool_use_id: use.id,
        content: result.text,
        is_error: result.isError,
      };
    }),
  );
}

/** Either shape: OpenAI tool calls or Anthropic content blocks. */
export function executeToolCalls(
  bridge: Caller,
  calls: readonly OpenAIToolCall[] | readonly { readonly type: string }[],
  options: ExecuteOptions = {},
): Promise<OpenAIToolMessage[] | AnthropicToolResultBlock[]> {
  const first = calls[0] as { function?: unknown } | undefined;
  if (first && "function" in first) return executeOpenAIToolCalls(bridge, calls as OpenAIToolCall[], options);
  return executeAnthropicToolUses(bridge, calls as { type: string }[], options);
}

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

function parseArguments(text: unknown): Parsed {
  if (text !== null && typeof text === "object" && !Array.isArray(text))
    return { ok: true, value: text as Record<string, unknown> };
  if (typeof text !== "string") return { ok: false, error: "the arguments must be a JSON object" };
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, error: "the arguments must be a JSON object" };
  } catch (error) {
    return { ok: false, error: `the arguments are not valid JSON (${(error as Error).message})` };
  }
}

/**
 * One model tool call: `args` is the model's JSON text or an object. Never throws: an unknown tool,
 * malformed arguments and failed calls all become error results the model can read.
 */
export async function executeToolCall(
  bridge: Caller,
  name: string | undefined,
  rawArgs: unknown,
  options: ExecuteOptions = {},
): Promise<ToolResult> {
  if (typeof name !== "string" || name === "") return errorToolResult(missingToolName());
  const { tools, approve, ...rest } = options;
  if (tools === undefined) {
    return runCall(
      name,
      rawArgs,
      rest,
      (tool) => bridge.tool?.(tool),
      (args, callOptions) => bridge.call(name, args, callOptions),
    );
  }
  const entry = findTool(tools, name);
  if (!entry) {
    return errorToolResult(unknownTool({ name: name.slice(0, 200), registered: tools.length, pending: [] }));
  }
  if (approve && !(await approve(entry))) return declinedResult(entry);
  return executeEntry(entry, rawArgs, rest);
}

/**
 * Runs exactly this tool (resolved and approved before) with the model's raw arguments. Never
 * throws, as executeToolCall.
 */
export function executeEntry(
  entry: ToolEntry,
  rawArgs: unknown,
  options: ExecuteOptions = {},
): Promise<ToolResult> {
  return runCall(
    entry.name,
    rawArgs,
    options,
    () => entry,
    (args, callOptions) => entry.call(args, callOptions),
  );
}

/** The result a refused call sends back to the model. */
export function declinedResult(entry: Pick<ToolEntry, "server" | "tool">): ToolResult {
  const text = `The user declined to run ${entry.server ? `${entry.server}/` : ""}${entry.tool}. Do not retry it; ask the user or continue without it.`;
  return { text, content: [{ type: "text", text }], isError: true };
}

async function runCall(
  name: string,
  rawArgs: unknown,
  options: ExecuteOptions,
  definitionOf: Caller["tool"],
  call: (args: Record<string, unknown>, options: CallOptions) => Promise<ToolResult>,
): Promise<ToolResult> {
  const args = parseArguments(rawArgs);
  if (!args.ok) {
    return errorToolResult(unreadableArguments({ tool: name, problem: args.error }));
  }
  const { mapArguments, strict, tools: _tools, approve: _approve, ...callOptions } = options;
  try {
    let value = args.value;
    const entry = strict ? definitionOf?.(name) : undefined;
    if (entry) value = fromOpenAIStrictArguments(entry, value);
    if (mapArguments) value = mapArguments(name, value);
    return await call(value, { ...callOptions, onError: "result" });
  } catch (error) {
    return errorToolResult(error, { tool: name });
  }
}
