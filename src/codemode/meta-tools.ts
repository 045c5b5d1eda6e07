import type { Bridge, CallOptions, ToolEntry } from "../bridge/api.js";
import { serversSettled } from "../bridge/servers/servers-settled.js";
import { ErrorCode } from "../errors/index.js";
import { flattenParameters } from "../registry/flatten.js";
import type { JsonSchema } from "../registry/tool-definition.js";
import { errorToolResult } from "../results/convert.js";
import type { ToolResult } from "../results/tool-result.js";
import { truncateText } from "../results/truncate.js";
import { searchLimit, searchToolsInputSchema } from "../search/search-tools-input.js";
import { reachAllows } from "../util/reach.js";
import { apiCache, type CodeModeSource } from "./api-cache.js";
import { CODE_MODE_DEFAULTS } from "./code-mode-defaults.js";
import type { ApiTool } from "./declarations.js";
import { type ExecuteCodeOptions, runProgram } from "./execute-code.js";
import { type CodeModeLimits, resolveLimits } from "./limits.js";

/**
 * Code mode for a model: three meta-tools instead of every tool. `search_tools` finds tools (the
 * bridge's BM25F search) and answers with one-line signatures, `describe_tools` gives their
 * TypeScript declarations, and `execute_code` runs a program that calls them in the sandbox; only
 * what the program prints or returns reaches the model. They are ordinary `ToolEntry` objects, so
 * every vendor export (`toOpenAITools`, `toAnthropicTools`, `toGeminiTools`, `toAiSdkTools`) and
 * every executor takes them as they are.
 */

export interface CodeModeOptions extends CodeModeLimits {
  /** Prefix of the meta-tools' names (default none: `search_tools`, `describe_tools`, `execute_code`). */
  readonly prefix?: string;
  /** Most tools one search returns (default 8, at most 30). */
  readonly searchLimit?: number;
  /** Characters of `execute_code`'s answer the model reads (default 20,000); the rest is cut with a marker. */
  readonly maxResultChars?: number;
  /** Asked before each tool a program calls; `false` refuses that call (see ExecuteCodeOptions). */
  readonly approve?: ExecuteCodeOptions["approve"];
}

const {
  searchLimit: DEFAULT_SEARCH_LIMIT,
  maxSearchLimit: MAX_SEARCH_LIMIT,
  maxDescribed: MAX_DESCRIBED,
  catalogWaitMs: CATALOG_WAIT_MS,
} = CODE_MODE_DEFAULTS;

export function codeModeTools(source: CodeModeSource, options: CodeModeOptions = {}): ToolEntry[] {
  const prefix = options.prefix ?? "";
  const names = {
    search: `${prefix}search_tools`,
    describe: `${prefix}describe_tools`,
    execute: `${prefix}execute_code`,
  };
  const api = apiCache(source);
  const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, options.searchLimit ?? DEFAULT_SEARCH_LIMIT));
  const maxChars = options.maxResultChars ?? CODE_MODE_DEFAULTS.results.answerChars;
  const limits = resolveLimits(options);
  const settle = (signal: AbortSignal | undefined) =>
    source.servers && source.on
      ? serversSettled(source as Pick<Bridge, "servers" | "on">, signal, CATALOG_WAIT_MS)
      : Promise.resolve();

  const search = metaTool(settle, {
    name: names.search,
    description:
      `Find tools for a task among the available tools. Describe the task in a few words. Answers with ` +
      `one-line TypeScript signatures (tools.<server>.<tool>(args)); get full declarations with ` +
      `${names.describe}, then call them from a program with ${names.execute}.`,
    inputSchema: searchToolsInputSchema(limit),
    run: async (args, callOptions) => {
      const query = typeof args.query === "string" ? args.query.trim() : "";
      if (!query) return modelError(`${names.search} needs a "query": describe the task in a few words.`);
      const wanted = searchLimit(args.limit, limit);
      const reach = callOptions?.reach;
      const current = api(reach);
      // Within a reach, the best matches may lie outside it: rank every tool, keep the first it allows.
      const found = source
        .searchTools(query, { limit: reach ? Math.max(wanted, source.tools().length) : wanted })
        .filter((entry) => reachAllows(reach, entry.server, entry.name))
        .slice(0, wanted)
        .map((entry) => current.find(entry.name))
        .filter((tool): tool is ApiTool => tool !== undefined);
      if (found.length === 0) return textResult(`No tool matches "${query.slice(0, 80)}". Try other words.`);
      return textResult(found.map((tool) => current.signature(tool)).join("\n"), {
        tools: found.map((tool) => tool.path),
      });
    },
  });

  const describe = metaTool(settle, {
    name: names.describe,
    description: `TypeScript declarations of tools, by the names ${names.search} gave (e.g. "github.create_issue"): parameters, result types and documentation.`,
    inputSchema: {
      type: "object",
      properties: {
        names: {
          type: "array",
          items: { type: "string" },
          maxItems: MAX_DESCRIBED,
          description: 'Tool names such as "server.tool" (or "tools.server.tool").',
        },
      },
      required: ["names"],
    },
    run: async (args, callOptions) => {
      const wanted = Array.isArray(args.names)
        ? args.names.filter((n): n is string => typeof n === "string")
        : [];
      if (wanted.length === 0)
        return modelError(`${names.describe} needs "names": tool names from ${names.search}.`);
      const current = api(callOptions?.reach);
      const found = new Map<string, ApiTool>();
      const missing: string[] = [];
      for (const name of wanted.slice(0, MAX_DESCRIBED)) {
        const tool = current.find(name);
        if (tool) found.set(tool.path, tool);
        else missing.push(name.slice(0, 100));
      }
      const chosen = current.tools.filter((tool) => found.has(tool.path));
      const parts = chosen.length > 0 ? [current.declarations(chosen)] : [];
      if (missing.length > 0) parts.push(`// Unknown: ${missing.join(", ")} (use ${names.search}).`);
      return textResult(parts.join("\n\n"));
    },
  });

  const execute = metaTool(settle, {
    name: names.execute,
    description:
      `Run a JavaScript program (TypeScript annotations allowed where the host can strip them) that calls tools as ` +
      `\`await tools.<server>.<tool>({ ...args })\` (find them with ${names.search} and ${names.describe}). Use ` +
      `console.log for what you need to see and/or \`return\` a JSON value: only that comes back, not the tools' ` +
      `raw results. Calls may run in parallel (Promise.all). A failed call throws (catch it to continue). ` +
      `No network, files, timers or modules. Limits: ${limits.cpuMs} ms CPU, ${limits.maxToolCalls} tool calls, ` +
      `${limits.timeoutMs / 1000} s, ${Math.round(limits.maxOutputChars / 1000)}k characters of output.`,
    inputSchema: {
      type: "object",
      properties: {
        code: { type: "string", description: "The program's source: the body of an async function." },
      },
      required: ["code"],
    },
    run: async (args, callOptions) => {
      const code = typeof args.code === "string" ? args.code : "";
      if (!code.trim()) return modelError(`${names.execute} needs "code": a program to run.`);
      try {
        // The program's calls are calls by whoever sent it: its caller, reach and `ask` answers.
        const run = await runProgram(source, api(callOptions?.reach), code, {
          ...options,
          signal: callOptions?.signal,
          caller: callOptions?.caller,
          reach: callOptions?.reach,
          approveCall: callOptions?.approveCall,
          upstream: callOptions?.upstream,
        });
        const returned = run.value === undefined ? "" : JSON.stringify(run.value, null, 2);
        const text = [run.output, returned].filter((part) => part !== "").join("\n") || "(no output)";
        const cut = truncateText(text, maxChars);
        return textResult(
          cut.text,
          undefined,
          cut.droppedChars > 0 ? cut.droppedChars : undefined,
          text.length,
        );
      } catch (error) {
        if (callOptions?.onError === "throw") throw error;
        return errorToolResult(error, { tool: names.execute });
      }
    },
  });
  return [search, describe, execute];
}

function textResult(
  text: string,
  structuredContent?: unknown,
  droppedChars?: number,
  originalChars?: number,
): ToolResult {
  const result: { -readonly [K in keyof ToolResult]: ToolResult[K] } = {
    text,
    content: [{ type: "text", text }],
    isError: false,
  };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  if (droppedChars !== undefined && originalChars !== undefined)
    result.truncated = { originalChars, droppedChars };
  return result;
}

function modelError(message: string): ToolResult {
  const text = `Error: ${message} [${ErrorCode.InvalidArguments}]`;
  return { text, content: [{ type: "text", text }], isError: true };
}

function metaTool(
  settle: (signal: AbortSignal | undefined) => Promise<void>,
  spec: {
    name: string;
    description: string;
    inputSchema: JsonSchema;
    run: (args: Record<string, unknown>, options?: CallOptions) => Promise<ToolResult>;
  },
): ToolEntry {
  return {
    name: spec.name,
    server: "",
    tool: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    annotations: { readOnlyHint: false },
    call: async (args = {}, options) => {
      await settle(options?.signal);
      return spec.run(args, options);
    },
    flatParameters: () => flattenParameters(spec.inputSchema),
  };
}
