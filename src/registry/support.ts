import type { Tool } from "@modelcontextprotocol/client";

/** A tool the registry keeps out of every export, and why. */
export interface SkippedTool {
  /** Original tool name from the server. */
  readonly tool: string;
  readonly reason: string;
}

/** What the bridge knows about a server that decides whether its tools can be called. */
export interface ServerCallSupport {
  /** The server declares task-augmented tools/call (`capabilities.tasks.requests.tools.call`). */
  readonly toolTasks: boolean;
}

/**
 * Why a well-formed tool cannot be called through the bridge, or undefined when it can. Every rule
 * that hides a tool the server offers lives here, so changing one is a one-line change.
 *
 * Task-required tools on a server without task support: a tool declaring
 * `execution.taskSupport: "required"` only accepts task-augmented calls, and a server that does not
 * declare task support for tools/call cannot run them, so every call the model made would fail.
 */
export function unsupportedReason(tool: Tool, support: ServerCallSupport): string | undefined {
  const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
  if (execution?.taskSupport === "required" && !support.toolTasks) {
    return (
      'it requires task-augmented calls (execution.taskSupport: "required"), but the server does not ' +
      "declare task support for tools/call (capabilities.tasks.requests.tools.call), so every call would fail"
    );
  }
  return undefined;
}
