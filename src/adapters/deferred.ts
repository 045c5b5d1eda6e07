import type { JsonSchema, ToolDefinition } from "../registry/tool-definition.js";
import { type AnthropicTool, objectSchema, toAnthropicTools } from "./anthropic.js";
import { toOpenAITools } from "./openai.js";

/**
 * Vendors' native deferred tool loading: every definition is sent, but marked `defer_loading`, and
 * the vendor's own tool search reveals a deferred tool to the model only when it searches for it.
 * Definitions then cost (almost) nothing per request and the prompt cache stays valid, without our
 * meta-tools. Use these where the vendor and model support it; `catalogTools` works everywhere else.
 */

export interface DeferredOptions {
  /** Tools that stay loaded (exposed names or `server/tool`); every other tool is deferred. */
  readonly alwaysLoad?: readonly string[];
}

export interface AnthropicDeferredOptions extends DeferredOptions {
  /** Which server-side search Claude uses: natural-language BM25 (default) or regex. */
  readonly search?: "bm25" | "regex";
}

export type AnthropicToolSearchTool =
  | { readonly type: "tool_search_tool_bm25_20251119"; readonly name: "tool_search_tool_bm25" }
  | { readonly type: "tool_search_tool_regex_20251119"; readonly name: "tool_search_tool_regex" };

export type AnthropicDeferredTool = AnthropicTool & { readonly defer_loading?: boolean };

/**
 * Anthropic Messages `tools` with the tool search tool first and every other tool `defer_loading`.
 * Needs the `advanced-tool-use-2025-11-20` beta header; the model's `tool_use` blocks name the
 * tools by their exposed names as usual, so `executeAnthropicToolUses` runs them.
 */
export function toAnthropicDeferredTools(
  entries: readonly ToolDefinition[],
  options: AnthropicDeferredOptions = {},
): [AnthropicToolSearchTool, ...AnthropicDeferredTool[]] {
  const pinned = pinnedSet(entries, options.alwaysLoad);
  const search: AnthropicToolSearchTool =
    options.search === "regex"
      ? { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }
      : { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };
  const tools = toAnthropicTools(entries).map((tool, i) =>
    pinned.has(entries[i] as ToolDefinition) ? tool : { ...tool, defer_loading: true },
  );
  return [search, ...tools];
}

/** A Responses API function tool. */
export interface ResponsesFunctionTool {
  readonly type: "function";
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly strict: false;
  readonly defer_loading?: boolean;
}

/** A Responses API namespace: one per MCP server, so the model first sees only servers' names. */
export interface ResponsesNamespace {
  readonly type: "namespace";
  readonly name: string;
  readonly description: string;
  readonly tools: readonly ResponsesFunctionTool[];
}

/**
 * OpenAI Responses API `tools` for its hosted tool search: `{ type: "tool_search" }`, then one
 * namespace per MCP server whose functions are `defer_loading` (pinned tools stay loaded). Function
 * names are the exposed names, unique across servers, so the executors map calls back as usual.
 */
export function toOpenAIResponsesDeferredTools(
  entries: readonly ToolDefinition[],
  options: DeferredOptions = {},
): [{ readonly type: "tool_search" }, ...ResponsesNamespace[]] {
  const pinned = pinnedSet(entries, options.alwaysLoad);
  const chat = toOpenAITools(entries);
  const namespaces = new Map<string, ResponsesFunctionTool[]>();
  entries.forEach((entry, i) => {
    const fn = chat[i]?.function;
    const tool: ResponsesFunctionTool = {
      type: "function",
      name: entry.name,
      description: fn?.description ?? entry.description,
      parameters: fn?.parameters ?? objectSchema(entry.inputSchema),
      strict: false,
      ...(pinned.has(entry) ? {} : { defer_loading: true }),
    };
    const list = namespaces.get(entry.server) ?? [];
    list.push(tool);
    namespaces.set(entry.server, list);
  });
  const used = new Set<string>();
  return [
    { type: "tool_search" },
    ...[...namespaces].map(([server, tools]) => ({
      type: "namespace" as const,
      name: namespaceName(server, used),
      description: `Tools of the MCP server "${server}" (${tools.length}).`,
      tools,
    })),
  ];
}

/**
 * Namespace names follow the function-name rule (`[A-Za-z0-9_-]`, at most 64) and stay unique when
 * two server names normalize alike (`a.b`, `a_b`).
 */
function namespaceName(server: string, used: Set<string>): string {
  const base = server.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60) || "mcp";
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
  used.add(name);
  return name;
}

function pinnedSet(entries: readonly ToolDefinition[], names: readonly string[] = []): Set<ToolDefinition> {
  const wanted = new Set(names);
  return new Set(entries.filter((e) => wanted.has(e.name) || wanted.has(`${e.server}/${e.tool}`)));
}
