import type { ServerDefinition, SkippedServer } from "../config/model.js";
import { isSandboxed, type ServerStatus } from "../connection/server-status.js";
import {
  ErrorCode,
  type McpBridgeError,
  type PendingServer,
  requiredServers,
  restartDisabled,
  restartNotSelected,
  restartUnknown,
  type ServerConnectionError,
  toolNotFound,
  toolUnavailable,
  unknownTool,
} from "../errors/index.js";
import { didYouMean } from "../util/suggest.js";
import { stillConnecting } from "./servers/server-record.js";

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
      const { server, tool } = target;
      return toolUnavailable({ server, tool, state: status.state, reason: status.lastError?.message });
    }
    return toolNotFound(target);
  }
  // The tool may belong to a server that has not listed its tools: say which, and why.
  const pending = statuses.flatMap((status): PendingServer[] => {
    if (stillConnecting(status)) return [{ name: status.name, state: "connecting" }];
    if (status.state !== "failed") return [];
    return [
      {
        name: status.name,
        state: "failed",
        reason: status.lastError?.message,
      },
    ];
  });
  return unknownTool({ name, registered, pending });
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
  return requiredServers({ down: reasons });
}

/** A configured server the bridge holds no record for (not selected by `only`). */
export function notStartedStatus(definition: ServerDefinition): ServerStatus {
  return {
    name: definition.name,
    transport: definition.transport,
    sandboxed: isSandboxed(definition),
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
    sandboxed: false,
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
  const configured = servers.map((definition) => definition.name);
  const definition = servers.find((candidate) => candidate.name === name);
  if (!definition) return restartUnknown({ server: name, configured, near: didYouMean(name, configured) });
  if (!definition.enabled || !globallyEnabled) return restartDisabled({ server: name });
  if (!selected(definition)) return restartNotSelected({ server: name });
  return undefined;
}
