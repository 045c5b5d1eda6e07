import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ServerConnection } from "../connection/connection.js";
import {
  ErrorCode,
  errorMessages,
  InvalidArgumentsError,
  McpBridgeError,
  ToolExecutionError,
} from "../errors/index.js";
import { flattenParameters } from "../registry/flatten.js";
import type { CallStats } from "../registry/stats.js";
import type { ToolDefinition } from "../registry/types.js";
import { validateArguments } from "../registry/validate.js";
import { type ConvertOptions, toToolResult } from "../results/convert.js";
import { OVERFLOW_BUDGET, type OverflowFiles } from "../results/overflow.js";
import type { ToolResult } from "../results/types.js";
import { loadTokenizer } from "../util/tokens.js";
import { keepUpstream, upstreamOf } from "../util/upstream.js";
import type { ServerRecord } from "./server-record.js";
import type { TaskCallOptions } from "./tasks.js";
import type { CallOptions, ResultOptions, ToolEntry } from "./types.js";

type Writable<T> = { -readonly [K in keyof T]: T[K] };

export interface CallContext {
  readonly stats: CallStats;
  /** The global cap on result text, for servers without their own. */
  readonly maxResultChars: number;
  readonly onError: "throw" | "result";
  readonly validateArguments: boolean;
  readonly results: ResultOptions;
  /** The bridge's overflow files (written within the budget, removed on close). */
  readonly overflowFiles: OverflowFiles;
  /** Masks the bridge's secrets in the server's error text that an error message quotes. */
  readonly redact: (text: string) => string;
  /** Runs the call as a task when the tool needs one (see surface.ts); undefined for an ordinary tool. */
  readonly callAsTask?: (
    connection: ServerConnection,
    args: Record<string, unknown> | undefined,
    options: TaskCallOptions,
  ) => Promise<CallToolResult> | undefined;
}

/** One call of a resolved tool on its server: argument check, the call, result conversion and stats. */
export async function callOnRecord(
  record: ServerRecord,
  definition: ToolDefinition,
  args: Record<string, unknown>,
  options: CallOptions,
  context: CallContext,
): Promise<ToolResult> {
  const server = record.definition;
  if (options.validateArguments ?? context.validateArguments) {
    const issues = validateArguments(definition.inputSchema, args);
    if (issues.length > 0) {
      throw new InvalidArgumentsError(
        errorMessages.invalidArguments(definition.server, definition.name, issues),
        { server: definition.server, tool: definition.tool, issues },
      );
    }
  }
  const started = performance.now();
  try {
    const timeoutMs = options.timeout ?? server.callTimeoutMs;
    const asTask =
      record.connection &&
      context.callAsTask?.(record.connection, args, {
        server: definition.server,
        tool: definition.tool,
        timeoutMs,
        signal: options.signal,
        onProgress: options.onProgress,
      });
    const raw = await (asTask ??
      record.callTool(definition.tool, args, {
        timeoutMs,
        signal: options.signal,
        onProgress: options.onProgress,
        resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      }));
    const maxResultTokens = options.maxResultTokens ?? server.maxResultTokens ?? context.results.maxTokens;
    // Built field by field: this runs on every call, and spreading empty objects allocates each.
    const convert: Writable<ConvertOptions> = {
      maxResultChars: options.maxResultChars ?? server.maxResultChars ?? context.maxResultChars,
    };
    if (maxResultTokens !== undefined) {
      convert.maxResultTokens = maxResultTokens;
      convert.tokenizer = await loadTokenizer();
    }
    if (context.results.overflow === "file") {
      const { overflowDir, overflowMaxBytes, overflowMaxAgeMs } = context.results;
      convert.overflow = (full: string) =>
        context.overflowFiles.write(full, definition, overflowDir, {
          maxBytes: overflowMaxBytes ?? OVERFLOW_BUDGET.maxBytes,
          maxAgeMs: overflowMaxAgeMs ?? OVERFLOW_BUDGET.maxAgeMs,
        });
    }
    const result = keepUpstream(toToolResult(raw, convert), raw);
    context.stats.record(
      definition.server,
      definition.name,
      performance.now() - started,
      result.isError ? "error" : "ok",
    );
    if (result.isError && (options.onError ?? context.onError) === "throw") {
      throw new ToolExecutionError(
        errorMessages.toolReportedError(definition.server, definition.tool, context.redact(result.text)),
        { server: definition.server, tool: definition.tool, result },
      );
    }
    return result;
  } catch (error) {
    if (!(error instanceof ToolExecutionError && error.result !== undefined)) {
      const outcome =
        error instanceof McpBridgeError && error.code === ErrorCode.ToolTimeout ? "timeout" : "error";
      context.stats.record(definition.server, definition.name, performance.now() - started, outcome);
    }
    throw error;
  }
}

/** The first defined value, or undefined once every task has settled without one (a rejection counts as none). */
export function firstFound<T>(tasks: readonly Promise<T | undefined>[]): Promise<T | undefined> {
  return new Promise((resolve) => {
    let left = tasks.length;
    if (left === 0) resolve(undefined);
    const settle = (found: T | undefined) => {
      left--;
      if (found !== undefined || left === 0) resolve(found);
    };
    for (const task of tasks) task.then(settle, () => settle(undefined));
  });
}

/** The callable `ToolEntry` of each tool definition, made once per definition. */
export class ToolEntries {
  readonly #entries = new WeakMap<ToolDefinition, ToolEntry>();

  of(definition: ToolDefinition, call: ToolEntry["call"]): ToolEntry {
    let entry = this.#entries.get(definition);
    if (!entry) {
      let flat: ReturnType<typeof flattenParameters> | undefined;
      entry = {
        ...definition,
        call,
        flatParameters: () => {
          flat ??= flattenParameters(definition.inputSchema);
          return flat;
        },
      };
      keepUpstream(entry, upstreamOf(definition));
      this.#entries.set(definition, entry);
    }
    return entry;
  }
}
