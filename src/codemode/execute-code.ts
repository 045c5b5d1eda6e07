import type { ApproveCall, CallUpstream, ToolEntry } from "../bridge/api.js";
import { codeCallDeclined, codeResultTooLarge, codeUnknownTool } from "../errors/index.js";
import type { ToolResult } from "../results/tool-result.js";
import { type CallerReach, reachAllows } from "../util/reach.js";
import { apiCache, type CodeModeSource } from "./api-cache.js";
import { CODE_MODE_DEFAULTS } from "./code-mode-defaults.js";
import type { CodeModeApi } from "./declarations.js";
import { type CodeModeLimits, resolveLimits } from "./limits.js";
import { runInSandbox, type SandboxHost } from "./sandbox.js";

export interface ExecuteCodeOptions extends CodeModeLimits {
  /** Cancels the program and its running tool calls. */
  readonly signal?: AbortSignal;
  /**
   * Who sent the program: each of its tool calls is a call by this caller (the call policy's `caller`
   * rules, the audit log), and the process's execution slots are shared per caller (execution-slots.ts).
   * A local caller is `""`.
   */
  readonly caller?: string;
  /**
   * What the caller may reach (a gateway client's profile): the program's API holds only those tools,
   * and it can call no other.
   */
  readonly reach?: CallerReach;
  /** Answers a policy `ask` for each of the program's calls, as for a direct call of this caller. */
  readonly approveCall?: ApproveCall;
  /** The caller's own connections (see `CallOptions.upstream`): its calls go over them as a direct call would. */
  readonly upstream?: CallUpstream;
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
/**
 * The JSON of one call's answer (its text, blocks and structured content together): a result larger
 * than this outside its text (structured content, images) is refused with RESULT_TOO_LARGE.
 */
const CALL_ANSWER_CHARS = 4 * CODE_MODE_DEFAULTS.results.callResultChars;

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
  return runProgram(source, apiCache(source)(options.reach), code, options);
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
      // The API holds only what the caller may reach; checked again here, where a call leaves.
      if (!tool || !reachAllows(options.reach, tool.entry.server, tool.entry.name)) {
        throw codeUnknownTool({ name: `${namespace}.${fn}` });
      }
      if (options.approve && !(await options.approve(tool.entry))) {
        throw codeCallDeclined({ server: tool.entry.server, tool: tool.entry.tool });
      }
      // A call by the program's caller: the policy's `caller` rules, its `ask` answers and the audit
      // log see the same caller as for a direct call.
      const result = await source.call(tool.entry.name, args, {
        signal,
        onError: "result",
        maxResultChars: CODE_MODE_DEFAULTS.results.callResultChars,
        caller: options.caller,
        approveCall: options.approveCall,
        upstream: options.upstream,
      });
      if (result.isError) throw new Error(result.text);
      const value = programValue(tool.entry, result);
      const chars = JSON.stringify(value ?? null).length;
      if (chars > CALL_ANSWER_CHARS) {
        throw codeResultTooLarge({
          server: tool.entry.server,
          tool: tool.entry.tool,
          chars,
          limit: CALL_ANSWER_CHARS,
        });
      }
      return value;
    },
  };
  const outcome = await runInSandbox(code, host, resolveLimits(options), options.signal, options.caller);
  return {
    output: outcome.output,
    value: outcome.returned === undefined ? undefined : JSON.parse(outcome.returned),
    toolCalls: outcome.toolCalls,
  };
}

/** With an output schema, the structured content (typed in the API); else the documented result shape. */
function programValue(entry: ToolEntry, result: ToolResult): unknown {
  if (entry.outputSchema && result.structuredContent !== undefined) return result.structuredContent;
  // A cut text stands for the whole result: the original blocks beside it would carry it uncut.
  if (result.truncated) {
    return { text: result.text, isError: result.isError, content: [{ type: "text", text: result.text }] };
  }
  return {
    text: result.text,
    isError: result.isError,
    structuredContent: result.structuredContent,
    content: result.content,
  };
}
