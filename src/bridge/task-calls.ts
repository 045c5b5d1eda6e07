import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import type { ServerConnection } from "../connection/connection.js";
import type { SessionClients } from "./features/session-clients.js";
import { callToolAsTask, runsAsTask, type TaskCallOptions, taskSupportOf } from "./tasks.js";

/**
 * Runs the call as a task when the tool declares task support (required, or optional on a server
 * that runs tool calls as tasks); undefined when the tool is an ordinary one.
 */
export function callAsTask(
  sessions: SessionClients,
  connection: ServerConnection,
  args: Record<string, unknown> | undefined,
  options: TaskCallOptions,
): Promise<CallToolResult> | undefined {
  // The tool first: for an ordinary tool (nearly every call) that one lookup is all it costs.
  const tool = toolByName(connection.tools()).get(options.tool);
  if (taskSupportOf(tool) === "forbidden") return undefined;
  const client = sessions.current(connection);
  if (!client || !runsAsTask(tool, client)) return undefined;
  return callToolAsTask(client, args, options);
}

/**
 * Tools by name, per listed array: a connection replaces its array only when its tools change, so
 * the task check on every call is one lookup instead of a scan of the server's whole tool list.
 */
const indexes = new WeakMap<readonly Tool[], Map<string, Tool>>();
function toolByName(tools: readonly Tool[]): Map<string, Tool> {
  let index = indexes.get(tools);
  if (!index) {
    index = new Map();
    // The first tool of a name wins, as a scan would find it.
    for (const tool of tools) if (!index.has(tool.name)) index.set(tool.name, tool);
    indexes.set(tools, index);
  }
  return index;
}
