import { ErrorCode, McpBridgeError } from "./error-classes.js";

/**
 * The CLI daemon's own failures, one factory per situation: the code, the wording and the fields are
 * composed here, so a throw site is one statement with no words.
 */

/** `--server NAME` naming no configured server. */
export const daemonUnknownServer = ({ server }: { server: string }) =>
  new McpBridgeError(ErrorCode.Usage, `No server named "${server}" in the config`, { server });

/** A request for an operation this daemon does not have (a CLI of another version). */
export const daemonUnknownOperation = ({ operation }: { operation: string }) =>
  new McpBridgeError(ErrorCode.Usage, `The daemon has no operation ${JSON.stringify(operation)}`);

export const daemonRequestTooLarge = () =>
  new McpBridgeError(ErrorCode.Usage, "The request to the daemon is too large");

export const daemonRequestNotJson = () =>
  new McpBridgeError(ErrorCode.Usage, "The request to the daemon is not JSON");

/** The daemon went away, or answered nonsense, in the middle of a request. */
export const daemonLost = ({ socket, detail }: { socket: string; detail: string }) =>
  new McpBridgeError(
    ErrorCode.DaemonUnavailable,
    `The mcp-bridge daemon at ${socket} stopped answering (${detail}); the request may have been partly done. Run the command again (it runs without a daemon when none is running), or add --no-daemon.`,
  );

/** The daemon's own error, rebuilt on the CLI's side from its answer (a code it does not know is DAEMON_UNAVAILABLE). */
export const daemonAnswered = ({ code, message }: { code: unknown; message: unknown }) =>
  new McpBridgeError(
    Object.values(ErrorCode).includes(code as ErrorCode) ? (code as ErrorCode) : ErrorCode.DaemonUnavailable,
    String(message),
  );

/** The runtime folder exists but is not safely this user's. */
export const daemonFolderUnsafe = ({ folder, reason }: { folder: string; reason: string }) =>
  new McpBridgeError(
    ErrorCode.Usage,
    `Refusing the daemon folder ${folder}: ${reason}. Remove it (or fix it with \`chmod 700\`) and try again.`,
  );

/** The pid file kept being replaced while this process tried to take it. */
export const daemonLockChurn = ({ file }: { file: string }) =>
  new McpBridgeError(
    ErrorCode.LockTimeout,
    `Could not take the daemon lock ${file}: it keeps changing. Another mcp-bridge daemon is starting or stopping for this config; retry in a moment.`,
  );

// --- abort and close reasons: what a request's signal or socket carries, not a user's error ---

/** The attach socket closed, read like a reset connection so attach reconnects. */
export const attachConnectionClosed = () =>
  Object.assign(new Error("the connection closed"), { code: "ECONNRESET" });

/** Stands in for the reason of a signal aborted without one. */
export const requestAborted = () => new Error("aborted");

/** The reason an operation of the daemon stops when its client went away. */
export const daemonClientDisconnected = () => new Error("the client disconnected");
