/**
 * Servers as a whole: one named that the config lacks, one not connected, disabled, closed,
 * restarted, or required and down. Each factory returns the complete error; the wording lives here
 * only. Text from a server or the config is already redacted by the caller.
 */
import { ErrorCode, McpBridgeError, ServerConnectionError, ServerCrashedError } from "./error-classes.js";

function serverList(configured: readonly string[]): string {
  return configured.length ? configured.join(", ") : "none";
}

/** A server name the config does not have. */
export function serverNotFound(fields: {
  server: string;
  configured: readonly string[];
}): ServerConnectionError {
  const { server, configured } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerNotFound,
    `No server named "${server}" in the config (servers: ${serverList(configured)}). Check \`mcp-bridge status\`.`,
    { server },
  );
}

/** `restart(server)` for a name the config does not have; `near` is the closest configured name. */
export function restartUnknown(fields: {
  server: string;
  configured: readonly string[];
  near?: string | undefined;
}): ServerConnectionError {
  const { server, configured, near } = fields;
  const hint = near === undefined ? "." : `; did you mean "${near}"?`;
  return new ServerConnectionError(
    ErrorCode.ServerNotFound,
    `Cannot restart "${server}": no such server in the config (servers: ${serverList(configured)})${hint}`,
    { server },
  );
}

export function restartDisabled(fields: { server: string }): ServerConnectionError {
  const { server } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Cannot restart "${server}": it is disabled in the config; set enabled = true (or remove disabled) and reload.`,
    { server },
  );
}

export function restartNotSelected(fields: { server: string }): ServerConnectionError {
  const { server } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Cannot restart "${server}": this bridge was started with \`only\` and does not run it.`,
    { server },
  );
}

/** A call that was running when `restart(server)` closed its connection. */
export function restartedDuringCall(fields: {
  server: string;
  tool: string;
  cause?: unknown;
}): ServerCrashedError {
  const { server, tool, cause } = fields;
  return new ServerCrashedError(
    `Server "${server}" was restarted while tool "${tool}" was running; the call was cut short and may or may not have taken effect. Retry it once the server is connected.`,
    { server, tool, cause },
  );
}

/**
 * A server that is not connected (idle, failed, reconnecting, ...) when something needed it. The
 * message names the server only (a caller's own error says which tool was called); `tool` is kept
 * as a field.
 */
export function serverUnavailable(fields: {
  server: string;
  state: string;
  reason?: string | undefined;
  tool?: string | undefined;
}): ServerConnectionError {
  const { server, state, reason, tool } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Server "${server}" is not connected (state: ${state}).${reason ? ` Last error: ${reason}` : ""}`,
    { server, tool },
  );
}

/** A tool that cannot be called because its server is not connected: the message names the tool. */
export function toolUnavailable(fields: {
  server: string;
  tool: string;
  state: string;
  reason?: string | undefined;
}): ServerConnectionError {
  const { server, tool, state, reason } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Tool "${tool}" cannot be called: server "${server}" is ${state}${reason ? ` (${reason})` : ""}.`,
    { server, tool },
  );
}

/** The server that would own a `server/tool` name is down. */
export function ownerUnavailable(fields: {
  server: string;
  name: string;
  reason?: string | undefined;
}): ServerConnectionError {
  const { server, name, reason } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Server "${server}", which would own "${name}", is not connected: ${reason ?? "it failed to start"}`,
    { server },
  );
}

/** SERVER_REQUIRED naming every `required` server that failed; the first one is the error's server. */
export function requiredServers(fields: {
  down: readonly { name: string; reason: string }[];
}): ServerConnectionError {
  const { down } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerRequired,
    `Required server${down.length > 1 ? "s" : ""} could not start: ${down
      .map(({ name, reason }) => `"${name}": ${reason}`)
      .join("; ")}. Fix the server or set required = false.`,
    { server: down[0]?.name ?? "" },
  );
}

/** A server whose connection was closed (the bridge is closing or the server was removed). */
export function serverClosed(fields: { server: string; tool?: string | undefined }): McpBridgeError {
  const { server, tool } = fields;
  return new McpBridgeError(ErrorCode.BridgeClosed, `Server "${server}" is closed.`, { server, tool });
}

/** A server closed while it was still starting. */
export function closedWhileStarting(fields: { server: string }): McpBridgeError {
  const { server } = fields;
  return new McpBridgeError(ErrorCode.BridgeClosed, `Server "${server}" was closed while it was starting.`, {
    server,
  });
}

export function serverDisabled(fields: { server: string; tool?: string | undefined }): ServerConnectionError {
  const { server, tool } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Server "${server}" is disabled in the config; enable it to use${tool ? ` tool "${tool}"` : " it"}.`,
    { server, tool },
  );
}

/** Any use of a bridge after `close()`. */
export function bridgeClosed(): McpBridgeError {
  return new McpBridgeError(ErrorCode.BridgeClosed, "The bridge is closed; start a new one.");
}

/** A server's OAuth could not be set up from its settings. */
export function authSetup(fields: { server: string; reason: string; cause?: unknown }): McpBridgeError {
  const { server, reason, cause } = fields;
  return new McpBridgeError(
    ErrorCode.Auth,
    `Server "${server}": authentication could not be set up: ${reason}. Fix its oauth settings in the config.`,
    { server, cause },
  );
}

/** A server refused our credentials (or their refresh) while connecting. */
export function authorizationFailed(fields: {
  server: string;
  detail: string;
  cause?: unknown;
}): McpBridgeError {
  const { server, detail, cause } = fields;
  return new McpBridgeError(ErrorCode.Auth, `Server "${server}": authorization failed: ${detail}`, {
    server,
    cause,
  });
}
