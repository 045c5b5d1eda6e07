import type { ServerDefinition, SkippedServer } from "../config/model.js";
import type { ServerStatus } from "../connection/server-status.js";
import {
  ErrorCode,
  errorMessages,
  McpBridgeError,
  type PendingServer,
  ServerConnectionError,
  ToolNotFoundError,
} from "../errors/index.js";
import { didYouMean } from "../util/suggest.js";
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
        errorMessages.serverUnavailable(target.server, status.state, status.lastError?.message, target.tool),
        { server: target.server, tool: target.tool },
      );
    }
    return new ToolNotFoundError(errorMessages.toolNotFound(target.server, target.tool), {
      server: target.server,
      tool: target.tool,
    });
  }
  // The tool may belong to a server that has not listed its tools: say which, and why.
  const pending = statuses.flatMap((status): PendingServer[] => {
    if (stillConnecting(status)) return [{ name: status.name, state: "connecting" }];
    if (status.state !== "failed") return [];
    return [
      {
        name: status.name,
        state: "failed",
        ...(status.lastError ? { reason: status.lastError.message } : {}),
      },
    ];
  });
  return new ToolNotFoundError(errorMessages.unknownTool(name, registered, pending), { tool: name });
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
  const reasons = down.map((definition) => ({
    name: definition.name,
    reason: statusOf(definition.name)?.lastError?.message ?? "failed",
  }));
  return new ServerConnectionError(ErrorCode.ServerRequired, errorMessages.requiredServers(reasons), {
    server: down[0]?.name ?? "",
  });
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

/**
 * Pure: why `restart(name)` cannot run, or undefined when it can: an unknown name (with the closest
 * configured one), a disabled server, or one this bridge does not run (`only`).
 */
export function restartRefusal(
  name: string,
  servers: readonly ServerDefinition[],
  globallyEnabled: boolean,
  selected: (definition: ServerDefinition) => boolean,
): ServerConnectionError | undefined {
  const names = servers.map((definition) => definition.name);
  const definition = servers.find((candidate) => candidate.name === name);
  const fields = { server: name };
  if (!definition) {
    const message = errorMessages.restartUnknown(name, names, didYouMean(name, names));
    return new ServerConnectionError(ErrorCode.ServerNotFound, message, fields);
  }
  if (!definition.enabled || !globallyEnabled) {
    return new ServerConnectionError(
      ErrorCode.ServerUnavailable,
      errorMessages.restartDisabled(name),
      fields,
    );
  }
  if (!selected(definition)) {
    return new ServerConnectionError(
      ErrorCode.ServerUnavailable,
      errorMessages.restartNotSelected(name),
      fields,
    );
  }
  return undefined;
}

/** BRIDGE_CLOSED: the bridge's `close()` began before this call or change. */
export function bridgeClosed(): McpBridgeError {
  return new McpBridgeError(ErrorCode.BridgeClosed, errorMessages.bridgeClosed());
}
