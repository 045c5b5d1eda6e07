import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import * as z from "zod";
import {
  AbortError,
  McpBridgeError,
  ToolTimeoutError,
  taskAborted,
  taskCallFailed,
  taskCancelledByServer,
  taskServerStopped,
  taskTimeout,
} from "../errors/index.js";
import { definedOnly } from "../util/defined.js";
import { errorText } from "../util/text-of.js";
import type { Progress } from "./api.js";

/**
 * Task-augmented tool calls (MCP 2025-11-25 tasks): `tools/call` with a `task` parameter creates a
 * task; we poll `tasks/get` at the server's suggested interval, passing status messages to
 * `onProgress`, then fetch the outcome with `tasks/result`. A timeout or abort sends `tasks/cancel`.
 * The SDK keeps the tasks wire vocabulary but no client runtime, so the polling lives here, on the
 * SDK's `request` with schemas of our own (lenient where servers differ).
 */

const TASK = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  pollInterval: z.number().optional(),
  statusMessage: z.string().optional(),
});
const CREATE_TASK_RESULT = z.looseObject({ task: TASK });
const GET_TASK_RESULT = TASK;
const TOOL_RESULT = z.looseObject({
  content: z.array(z.unknown()).optional(),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});

/** Polling bounds: a server cannot make us spin, nor make us sleep through the call's timeout. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5000;
const DEFAULT_POLL_MS = 1000;
/** Time given to `tasks/cancel` after a timeout or abort. */
const CANCEL_TIMEOUT_MS = 2000;

export type TaskSupport = "forbidden" | "optional" | "required";

export function taskSupportOf(tool: Tool | undefined): TaskSupport {
  const support = (tool as { execution?: { taskSupport?: unknown } } | undefined)?.execution?.taskSupport;
  return support === "optional" || support === "required" ? support : "forbidden";
}

/** Run as a task when the tool requires it, or allows it and the server can run tool calls as tasks. */
export function runsAsTask(tool: Tool | undefined, client: Client | undefined): boolean {
  const support = taskSupportOf(tool);
  if (support === "required") return true;
  if (support !== "optional") return false;
  return declaresToolTasks(client?.getServerCapabilities());
}

/** Whether server capabilities declare task-augmented tools/call (`tasks.requests.tools.call`). */
export function declaresToolTasks(capabilities: object | undefined): boolean {
  const declared = capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined;
  return declared?.tasks?.requests?.tools?.call !== undefined;
}

export interface TaskCallOptions {
  readonly server: string;
  readonly tool: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
}

export async function callToolAsTask(
  client: Client,
  args: Record<string, unknown> | undefined,
  options: TaskCallOptions,
): Promise<CallToolResult> {
  const { server, tool, timeoutMs, signal } = options;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const requestOptions = () => ({ timeout: remaining(), signal });
  let taskId: string | undefined;
  try {
    const created = await client.request(
      {
        method: "tools/call",
        // A wire message: an absent `arguments` stays absent.
        params: definedOnly({ name: tool, arguments: args, task: {} }),
      },
      CREATE_TASK_RESULT,
      requestOptions(),
    );
    taskId = created.task.taskId;
    let task = created.task;
    let step = 0;
    let lastMessage: string | undefined;
    const report = () => {
      if (task.statusMessage === undefined || task.statusMessage === lastMessage) return;
      lastMessage = task.statusMessage;
      options.onProgress?.({ progress: ++step, message: `${task.status}: ${task.statusMessage}` });
    };
    report();
    // input_required: the server queues its requests (elicitation, sampling) behind tasks/result.
    while (task.status === "working" || task.status === "submitted") {
      const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS));
      await sleep(Math.min(interval, remaining()), signal);
      if (Date.now() >= deadline) throw taskTimeout({ server, tool, timeoutMs, taskId });
      task = await client.request(
        { method: "tasks/get", params: { taskId } },
        GET_TASK_RESULT,
        requestOptions(),
      );
      report();
    }
    if (task.status === "cancelled") {
      throw taskCancelledByServer({ server, tool, taskId, statusMessage: task.statusMessage });
    }
    const result = await client.request(
      { method: "tasks/result", params: { taskId } },
      TOOL_RESULT,
      requestOptions(),
    );
    if (task.status === "failed" && result.isError !== true) {
      return {
        content: [{ type: "text", text: `Task failed: ${task.statusMessage ?? "no message"}` }],
        isError: true,
      };
    }
    return { content: [], ...result } as CallToolResult;
  } catch (error) {
    const failure = classify(error, options, taskId, client.transport === undefined);
    if (taskId !== undefined && (failure instanceof ToolTimeoutError || failure instanceof AbortError)) {
      await client
        .request({ method: "tasks/cancel", params: { taskId } }, z.looseObject({}), {
          timeout: CANCEL_TIMEOUT_MS,
        })
        .catch(() => {});
    }
    throw failure;
  }
}

function classify(
  error: unknown,
  options: TaskCallOptions,
  taskId: string | undefined,
  sessionClosed: boolean,
): McpBridgeError {
  const { server, tool, timeoutMs, signal } = options;
  if (error instanceof McpBridgeError) return error;
  if (signal?.aborted) return taskAborted({ server, tool, taskId, cause: error });
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
    return taskTimeout({ server, tool, timeoutMs, taskId });
  }
  // Between two polls the session may end: the SDK then refuses the next request as "not connected".
  const closed =
    sessionClosed ||
    (SdkError.isInstance(error) &&
      (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected));
  if (closed) return taskServerStopped({ server, tool, taskId, cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  const rpcCode = typeof code === "number" ? code : undefined;
  return taskCallFailed({ server, tool, taskId, detail: errorText(error), rpcCode, cause: error });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
