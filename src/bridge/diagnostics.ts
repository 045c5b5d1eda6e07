import type { ServerDefinition, SkippedServer } from "../config/model.js";
import type { ServerStatus } from "../connection/status.js";
import { ErrorCode, type McpBridgeError, ServerConnectionError, ToolNotFoundError } from "../errors.js";
import { stillConnecting } from "./server-record.js";

/** Pure: the error for a tool name that resolved to nothing, saying which servers may still bring it. */
export function unknownToolError(
  name: string,
  target: { server: string; tool: string } | undefined,
  statuses: readonly ServerStatus[],
  registered: number,
): McpBridgeError {
  if (target) {
    const status = statuses.find((candidate) => candidate.name === target.server);
    if (status && status.state !== "connected") {
      return new ServerConnectionError(
        ErrorCode.ServerUnavailable,
        `Tool "${target.tool}" cannot be called: server "${target.server}" is ${status.state}${status.lastError ? ` (${status.lastError.message})` : ""}.`,
        { server: target.server, tool: target.tool },
      );
    }
    return new ToolNotFoundError(
      `Server "${target.server}" has no tool "${target.tool}". Run \`mcp-bridge tools --server ${target.server}\` to list its tools.`,
      { server: target.server, tool: target.tool },
    );
  }
  // The tool may belong to a server that has not listed its tools: say which, and why.
  const pending = statuses.flatMap((status) => {
    if (stillConnecting(status)) return [`server "${status.name}" is still connecting`];
    if (status.state !== "failed") return [];
    const reason = status.lastError ? `: ${status.lastError.message.slice(0, 300)}` : "";
    return [`server "${status.name}" failed${reason}`];
  });
  const servers = pending.length > 0 ? `; ${pending.join("; ")}` : "";
  return new ToolNotFoundError(
    `Unknown tool "${name}" (${registered} tools registered${servers}). Use an exposed name from \`mcp-bridge tools\` or "server/tool".`,
    { tool: name },
  );
}

/** Pure: SERVER_REQUIRED naming every enabled `required` server that failed, or undefined when none did. */
export function requiredServersError(
  servers: readonly ServerDefinition[],
  statusOf: (name: string) => ServerStatus | undefined,
): ServerConnectionError | undefined {
  const down = servers.filter(
    (definition) =>
      definition.required && definition.enabled && statusOf(definition.name)?.state === "failed",
  );
  if (down.length === 0) return undefined;
  const reasons = down
    .map((definition) => `"${definition.name}": ${statusOf(definition.name)?.lastError?.message ?? "failed"}`)
    .join("; ");
  return new ServerConnectionError(
    ErrorCode.ServerRequired,
    `Required server${down.length > 1 ? "s" : ""} could not start: ${reasons}. Fix the server or set required = false.`,
    { server: down[0]?.name ?? "" },
  );
}

/** A configured server the bridge holds no record for (not selected by `only`). */
export function notStartedStatus(definition: ServerDefinition): ServerStatus {
  return {
    name: definition.name,
    transport: definition.transport,
    state: definition.enabled ? "idle" : "disabled",
    toolCount: 0,
    restarts: 0,
    stderrTail: [],
  };
}

/** A config entry that could not load, as a status row: every server the user wrote is visible. */
export function invalidStatus(entry: SkippedServer): ServerStatus {
  return {
    name: entry.name,
    transport: entry.transport,
    state: "invalid",
    toolCount: 0,
    restarts: 0,
    lastError: { code: ErrorCode.ConfigInvalid, message: entry.reason },
    stderrTail: [],
  };
}
