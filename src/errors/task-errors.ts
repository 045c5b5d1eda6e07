/**
 * Task-augmented tool calls (bridge/tasks.ts): a task the server cancelled, one that ran out of time
 * or was aborted (the task is then cancelled on the server), a session that ended between two polls,
 * and any other failure of the task's requests. Each names the task when the server created one.
 */
import { AbortError, ServerCrashedError, ToolExecutionError, ToolTimeoutError } from "./error-classes.js";

function taskPart(taskId: string | undefined): string {
  return taskId === undefined ? "" : ` (task ${taskId})`;
}

/** The server reported the task `cancelled`. */
export function taskCancelledByServer(fields: {
  server: string;
  tool: string;
  taskId: string;
  statusMessage?: string | undefined;
}): ToolExecutionError {
  const { server, tool, taskId, statusMessage } = fields;
  return new ToolExecutionError(
    `Task ${taskId} of tool "${tool}" on server "${server}" was cancelled by the server${statusMessage ? `: ${statusMessage}` : "."}`,
    { server, tool },
  );
}

export function taskTimeout(fields: {
  server: string;
  tool: string;
  timeoutMs: number;
  taskId?: string | undefined;
}): ToolTimeoutError {
  const { server, tool, timeoutMs, taskId } = fields;
  return new ToolTimeoutError(
    `Tool "${tool}" on server "${server}" did not finish within ${timeoutMs} ms${taskPart(taskId)}; the task was cancelled. Raise the call timeout if the tool is just slow.`,
    { server, tool, timeoutMs },
  );
}

export function taskAborted(fields: {
  server: string;
  tool: string;
  taskId?: string | undefined;
  cause?: unknown;
}): AbortError {
  const { server, tool, taskId, cause } = fields;
  return new AbortError(
    `Call to tool "${tool}" on server "${server}"${taskPart(taskId)} was aborted by the caller; the task was cancelled.`,
    { server, tool, cause },
  );
}

/** The session ended while the task ran (between two polls, or under a request). */
export function taskServerStopped(fields: {
  server: string;
  tool: string;
  taskId?: string | undefined;
  cause?: unknown;
}): ServerCrashedError {
  const { server, tool, taskId, cause } = fields;
  return new ServerCrashedError(
    `Server "${server}" stopped while tool "${tool}" was running${taskPart(taskId)}. mcp-bridge restarts it automatically; retry the call.`,
    { server, tool, cause },
  );
}

/** Any other failure of a task's requests; `rpcCode` when the server answered with a JSON-RPC error. */
export function taskCallFailed(fields: {
  server: string;
  tool: string;
  detail: string;
  taskId?: string | undefined;
  rpcCode?: number | undefined;
  cause?: unknown;
}): ToolExecutionError {
  const { server, tool, detail, taskId, rpcCode, cause } = fields;
  return new ToolExecutionError(
    `Task call to tool "${tool}" on server "${server}"${taskPart(taskId)} failed: ${detail}`,
    { server, tool, cause, rpcCode },
  );
}
