import type { ToolEntry } from "../bridge/api.js";
import { codeCallDeclined, codeUnknownTool } from "../errors/index.js";
import type { ToolResult } from "../results/tool-result.js";
import { apiCache, type CodeModeSource } from "./api-cache.js";
import { CODE_MODE_DEFAULTS } from "./code-mode-defaults.js";
import type { CodeModeApi } from "./declarations.js";
import { type CodeModeLimits, resolveLimits } from "./limits.js";
import { runInSandbox, type SandboxHost } from "./sandbox.js";

export interface ExecuteCodeOptions extends CodeModeLimits {
  /** Cancels the program and its running tool calls. */
  readonly signal?: AbortSignal;
  /** Called with each tool the program calls, before it runs; `false` refuses that call (the program sees an error). */
  readonly approve?: (entry: ToolEntry) => boolean | Promise<boolean>;
}

export interface CodeExecution {
  /** What the program printed, one `console` call per line. */
  readonly output: string;
  /** What the program returned (parsed from JSON), or undefined. */
  readonly value: unknown;
  /** How many tool calls it made. */
  readonly toolCalls: number;
}

/**
 * Runs a program against the typed API of the source's tools (`await tools.<server>.<tool>({...})`)
 * in a fresh QuickJS sandbox; see sandbox.ts for what it can and cannot reach. Every tool call goes
 * through `source.call`: the same path, timeouts, cancellation, policy and stats as a direct call.
 *
 * A function rather than a `Bridge` method: the bridge is a lower layer than code mode and must not
 * import it (nor load QuickJS). Throws a McpBridgeError: CODE_LIMIT (CodeLimitError, with `limit`),
 * CODE_FAILED (did not parse, or threw), ABORTED (the caller's signal).
 */
export function executeCode(
  source: CodeModeSource,
  code: string,
  options: ExecuteCodeOptions = {},
): Promise<CodeExecution> {
  return runProgram(source, apiCache(source)(), code, options);
}

/** executeCode over an API already built (the meta-tools keep theirs cached). */
export async function runProgram(
  source: CodeModeSource,
  api: CodeModeApi,
  code: string,
  options: ExecuteCodeOptions = {},
): Promise<CodeExecution> {
  const names: Record<string, string[]> = {};
  for (const tool of api.tools) names[tool.namespace] = [...(names[tool.namespace] ?? []), tool.fn];
  const host: SandboxHost = {
    api: names,
    call: async (namespace, fn, args, signal) => {
      const tool = api.find(`${namespace}.${fn}`);
      if (!tool) throw codeUnknownTool({ name: `${namespace}.${fn}` });
      if (options.approve && !(await options.approve(tool.entry))) {
        throw codeCallDeclined({ server: tool.entry.server, tool: tool.entry.tool });
      }
      const result = await source.call(tool.entry.name, args, {
        signal,
        onError: "result",
        maxResultChars: CODE_MODE_DEFAULTS.results.callResultChars,
      });
      if (result.isError) throw new Error(result.text);
      return programValue(tool.entry, result);
    },
  };
  const outcome = await runInSandbox(code, host, resolveLimits(options), options.signal);
  return {
    output: outcome.output,
    value: outcome.returned === undefined ? undefined : JSON.parse(outcome.returned),
    toolCalls: outcome.toolCalls,
  };
}

/** With an output schema, the structured content (typed in the API); else the documented result shape. */
function programValue(entry: ToolEntry, result: ToolResult): unknown {
  if (entry.outputSchema && result.structuredContent !== undefined) return result.structuredContent;
  return {
    text: result.text,
    isError: result.isError,
    structuredContent: result.structuredContent,
    content: result.content,
  };
}
