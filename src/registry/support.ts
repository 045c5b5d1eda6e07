import type { Tool } from "@modelcontextprotocol/client";

/** A tool the registry keeps out of every export, and why. */
export interface SkippedTool {
  /** Original tool name from the server. */
  readonly tool: string;
  readonly reason: string;
}

/**
 * Why a well-formed tool cannot be called through the bridge, or undefined when it can. Every rule
 * that hides a tool the server offers lives here, so lifting one is a one-line change.
 *
 * Task-required tools: a tool declaring `execution.taskSupport: "required"` only accepts
 * task-augmented `tools/call` requests, which the bridge does not send yet; exported, every call the
 * model makes would fail. Remove this rule once calls can be task-augmented.
 */
export function unsupportedReason(tool: Tool): string | undefined {
  const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
  if (execution?.taskSupport === "required") {
    return 'it requires task-augmented calls (execution.taskSupport: "required"), which mcp-bridge does not make yet';
  }
  return undefined;
}
