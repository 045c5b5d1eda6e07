import type { CallOptions, ToolEntry } from "../bridge/api.js";
import { ErrorCode, searchUnknownTool } from "../errors/index.js";
import { flattenParameters } from "../registry/flatten.js";
import type { JsonSchema } from "../registry/tool-definition.js";
import type { ToolResult } from "../results/tool-result.js";
import { DEFAULT_SEARCH_LIMIT, searchLimit, searchToolsInputSchema } from "../search/search-tools-input.js";
import type { ToolSearchOptions } from "../search/tool-search.js";
import { loadTokenizer } from "../util/token-count.js";
import { toOpenAITools } from "./openai.js";

/**
 * Catalog mode: instead of every tool definition, the model gets two small meta-tools, one that
 * searches the catalog and one that calls what it found. A catalog of hundreds of tools then costs
 * a few hundred tokens per request instead of tens of thousands, and the model chooses among the
 * handful of tools that match its task instead of among all of them.
 *
 * The meta-tools are ordinary `ToolEntry` objects, so every export (`toOpenAITools`,
 * `toAnthropicTools`, `toGeminiTools`, the AI SDK tools, `flatParameters`) and every executor works
 * with them unchanged: a model's `call_tool` call runs the real tool, with its arguments validated
 * against the real tool's schema first.
 */

/** What catalog mode needs from a bridge (a `Bridge` is one). */
export interface ToolCatalogSource {
  tools(): readonly ToolEntry[];
  tool(name: string): ToolEntry | undefined;
  searchTools(query: string, options?: ToolSearchOptions): readonly ToolEntry[];
  call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
}

/** Calls tools by exposed name, meta-tools included: what the executors take. */
export interface CatalogCaller {
  call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  tool(name: string): ToolEntry | undefined;
}

export interface CatalogOptions {
  /**
   * `auto` (default): catalog mode only when the full definitions exceed the token budget;
   * `always`: catalog mode; `never`: every tool.
   */
  readonly mode?: "auto" | "always" | "never";
  /** The model's context window in tokens (default 128,000). */
  readonly contextWindow?: number;
  /** Share of the context window the tool definitions may take before `auto` switches (default 0.1). */
  readonly budgetShare?: number;
  /** An explicit budget in tokens (overrides contextWindow x budgetShare). */
  readonly budgetTokens?: number;
  /** Tools that stay loaded in catalog mode (exposed names or `server/tool`). */
  readonly alwaysLoad?: readonly string[];
  /** How many tools one search returns at most (default 5, at most 20). */
  readonly searchLimit?: number;
  /** Prefix of the meta-tools' names (default `mcp_`: `mcp_search_tools`, `mcp_call_tool`). */
  readonly prefix?: string;
}

/** The exported tools and a caller for the executors (`executeOpenAIToolCalls(catalog, calls)`). */
export interface ToolCatalog extends CatalogCaller {
  /** `catalog`: the meta-tools (plus always-loaded tools); `full`: every tool. */
  readonly mode: "catalog" | "full";
  /** The entries to export to the model. */
  readonly tools: readonly ToolEntry[];
  /** Tokens of every tool's definition (OpenAI function JSON, o200k tokenizer). */
  readonly fullTokens: number;
  /** Tokens of what `tools` exports. */
  readonly exportedTokens: number;
  readonly budgetTokens: number;
}

export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_BUDGET_SHARE = 0.1;
const MAX_SEARCH_LIMIT = 20;
/** A found tool's schema is shown whole up to this size, then cut (the call validates anyway). */
const MAX_SCHEMA_CHARS = 4000;

/** Catalog mode decided by the token budget (see CatalogOptions.mode). */
export async function toolCatalog(
  source: ToolCatalogSource,
  options: CatalogOptions = {},
): Promise<ToolCatalog> {
  const all = source.tools();
  const budgetTokens =
    options.budgetTokens ??
    Math.floor(
      (options.contextWindow ?? DEFAULT_CONTEXT_WINDOW) * (options.budgetShare ?? DEFAULT_BUDGET_SHARE),
    );
  const fullTokens = await definitionTokens(all);
  const mode = options.mode ?? "auto";
  const useCatalog = mode === "always" || (mode === "auto" && fullTokens > budgetTokens);
  if (!useCatalog) {
    return {
      mode: "full",
      tools: all,
      fullTokens,
      exportedTokens: fullTokens,
      budgetTokens,
      ...catalogCaller(source, []),
    };
  }
  const tools = catalogTools(source, options);
  const exportedTokens = await definitionTokens(tools);
  return {
    mode: "catalog",
    tools,
    fullTokens,
    exportedTokens,
    budgetTokens,
    ...catalogCaller(source, tools),
  };
}

/**
 * A caller for the executors that runs the meta-tools itself and every other name through the
 * bridge, so `executeOpenAIToolCalls(catalogCaller(bridge, tools), calls)` needs nothing else.
 */
export function catalogCaller(source: ToolCatalogSource, tools: readonly ToolEntry[]): CatalogCaller {
  const own = new Map(tools.filter((t) => t.server === "").map((t) => [t.name, t]));
  return {
    call: (name, args, options) => own.get(name)?.call(args, options) ?? source.call(name, args, options),
    tool: (name) => own.get(name) ?? source.tool(name),
  };
}

/** Tokens the tools' definitions cost in a request (OpenAI function JSON, counted with o200k). */
export async function definitionTokens(entries: readonly ToolEntry[]): Promise<number> {
  return (await loadTokenizer()).count(JSON.stringify(toOpenAITools(entries)));
}

/** The meta-tools, followed by the always-loaded tools. */
export function catalogTools(source: ToolCatalogSource, options: CatalogOptions = {}): ToolEntry[] {
  const prefix = options.prefix ?? "mcp_";
  const searchName = `${prefix}search_tools`;
  const callName = `${prefix}call_tool`;
  const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, options.searchLimit ?? DEFAULT_SEARCH_LIMIT));
  const pinned = (options.alwaysLoad ?? []).flatMap((name) => {
    const entry = source.tool(name) ?? source.tools().find((t) => `${t.server}/${t.tool}` === name);
    return entry ? [entry] : [];
  });

  const search = metaTool({
    name: searchName,
    description:
      `Find tools for a task among ${source.tools().length} available tools. Describe the task in a few words ` +
      `(or give a tool's exact name). Returns the best matching tools with their parameters; call one with ${callName}.`,
    inputSchema: searchToolsInputSchema(limit),
    run: async (args) => {
      const query = typeof args.query === "string" ? args.query : "";
      if (!query.trim())
        return modelError(`${searchName} needs a "query": describe the task in a few words.`);
      const wanted = searchLimit(args.limit, limit);
      const found = source.searchTools(query, { limit: wanted });
      return searchResult(query, found, callName);
    },
  });

  const call = metaTool({
    name: callName,
    description: `Call a tool found with ${searchName}, by its exact name, with arguments matching its parameters.`,
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: `The tool's exact name, as ${searchName} returned it.` },
        arguments: { type: "object", description: "The tool's arguments, matching its parameters." },
      },
      required: ["name"],
    },
    run: async (args, options) => {
      const name = typeof args.name === "string" ? args.name : "";
      const target = source.tool(name) ?? source.tools().find((t) => `${t.server}/${t.tool}` === name);
      if (!target || target.name === searchName || target.name === callName) {
        const error = searchUnknownTool({ name, searchTool: searchName });
        if (options?.onError === "throw") throw error;
        return modelError(error.message, error.code);
      }
      const given = args.arguments;
      if (given !== undefined && (typeof given !== "object" || given === null || Array.isArray(given))) {
        return modelError(`"arguments" must be an object with ${target.name}'s parameters.`);
      }
      // The real tool's schema decides: arguments are validated before anything is sent.
      return target.call((given ?? {}) as Record<string, unknown>, { ...options, validateArguments: true });
    },
  });
  return [search, call, ...pinned.filter((e) => e.name !== searchName && e.name !== callName)];
}

function searchResult(query: string, found: readonly ToolEntry[], callName: string): ToolResult {
  const shown = query.length > 80 ? `${query.slice(0, 80)}...` : query;
  if (found.length === 0) {
    const text = `No tool matches "${shown}". Try other words (what the tool does, or the service it is for).`;
    return { text, content: [{ type: "text", text }], isError: false, structuredContent: { tools: [] } };
  }
  const lines = [`${found.length} tools match "${shown}". Call one with ${callName} { name, arguments }:`];
  const tools = found.map((entry) => {
    const schema = JSON.stringify(entry.inputSchema);
    const parameters =
      schema.length > MAX_SCHEMA_CHARS ? `${schema.slice(0, MAX_SCHEMA_CHARS)}... (cut)` : schema;
    lines.push("", `${entry.name}: ${entry.description}`, `parameters: ${parameters}`);
    return { name: entry.name, description: entry.description, inputSchema: entry.inputSchema };
  });
  const text = lines.join("\n");
  return { text, content: [{ type: "text", text }], isError: false, structuredContent: { tools } };
}

/** A failure the model can act on, in the same `Error: ... [CODE]` shape as failed tool calls. */
function modelError(message: string, code: string = ErrorCode.InvalidArguments): ToolResult {
  const text = `Error: ${message} [${code}]`;
  return { text, content: [{ type: "text", text }], isError: true };
}

function metaTool(spec: {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  run: (args: Record<string, unknown>, options?: CallOptions) => Promise<ToolResult>;
}): ToolEntry {
  return {
    name: spec.name,
    server: "",
    tool: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    annotations: { readOnlyHint: false },
    call: (args = {}, options) => spec.run(args, options),
    flatParameters: () => flattenParameters(spec.inputSchema),
  };
}
