/**
 * One connect attempt or a live session that failed: the process could not run, the handshake timed
 * out, the server exited, needs authorization, is unreachable, stopped, or forgot the session.
 * `at` is " at <redacted url>" for remote servers ("" for stdio); `stderrHint` is the already
 * redacted tail of the server's stderr ("" when there is none); `detail` is redacted error text.
 */
import { ErrorCode, ServerConnectionError, ServerCrashedError } from "./error-classes.js";

interface StartFields {
  server: string;
  cause?: unknown;
  /** Last lines the server wrote to stderr, redacted. */
  stderrTail?: string[] | undefined;
  /** What a sandbox withheld that explains the failure, with the grant to add (sandboxWithheldHint); "" when nothing. */
  withheld?: string | undefined;
}

/** stdio: the command does not exist or is not executable (ENOENT, EACCES). */
export function commandNotRunnable(
  fields: StartFields & { command: string; errno: string },
): ServerConnectionError {
  const { server, command, errno } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}": cannot run command "${command}" (${errno}). Check the command and PATH in the config.`,
    fields,
  );
}

export function handshakeTimeout(
  fields: StartFields & { timeoutMs: number; stderrHint: string },
): ServerConnectionError {
  const { server, timeoutMs, stderrHint, withheld = "" } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartTimeout,
    `Server "${server}" did not complete the MCP handshake within ${timeoutMs} ms; it was stopped.${withheld || " Raise startupTimeout if it is just slow."}${stderrHint}`,
    fields,
  );
}

/** `exit` says how it ended ("exited with code 1", "was killed by SIGKILL"). */
export function exitedBeforeHandshake(
  fields: StartFields & { exit: string; stderrHint: string },
): ServerConnectionError {
  const { server, exit, stderrHint, withheld = "" } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}" ${exit} before completing the MCP handshake.${withheld}${stderrHint || " It wrote nothing to stderr."}`,
    fields,
  );
}

export function authorizationRequired(fields: StartFields & { at: string }): ServerConnectionError {
  const { server, at } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}"${at} requires authorization: run \`mcp-bridge auth login ${server}\`, or configure its oauth settings or an Authorization header.`,
    fields,
  );
}

/** A network failure reaching a remote server; `wording` explains the system code and what to do. */
export function networkUnreachable(
  fields: StartFields & { at: string; wording: string },
): ServerConnectionError {
  const { server, at, wording } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}"${at} could not be connected (${wording}).`,
    fields,
  );
}

/** Any other connect failure; `status` is the HTTP status when there was one. */
export function connectFailed(
  fields: StartFields & { at: string; status?: number | undefined; detail: string; stderrHint: string },
): ServerConnectionError {
  const { server, at, status, detail, stderrHint, withheld = "" } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}"${at} could not be connected${status ? ` (HTTP ${status})` : ""}: ${detail}${withheld}${stderrHint}`,
    fields,
  );
}

/** A server given in code whose `connect` function gave something that is not an SDK `Transport`. */
export function notATransport(fields: { server: string; got: string }): ServerConnectionError {
  const { server, got } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}": its \`connect\` function returned ${got}, not an MCP transport (an object with start, send and close); return a new one on each call, e.g. one end of InMemoryTransport.createLinkedPair().`,
    { server },
  );
}

/** tools/list kept paging; `what` says how ("sent more than 100 pages", "repeated a cursor"). */
export function endlessListing(fields: { server: string; what: string }): ServerConnectionError {
  const { server, what } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}": tools/list pagination does not end (the server ${what}); the listing was stopped. Fix the server's cursors.`,
    { server },
  );
}

/** A session that ended without us closing it; `how` is " (exit code 1)" or "" when unknown. */
export function unexpectedStop(fields: {
  server: string;
  how: string;
  /** The limit that stopped it (limitHitHint), "" when none did. */
  limit?: string;
  stderrHint: string;
}): ServerCrashedError {
  const { server, how, limit = "", stderrHint } = fields;
  return new ServerCrashedError(`Server "${server}" stopped unexpectedly${how}.${limit}${stderrHint}`, {
    server,
  });
}

export function becameUnreachable(fields: {
  server: string;
  at: string;
  detail: string;
  cause?: unknown;
}): ServerCrashedError {
  const { server, at, detail, cause } = fields;
  return new ServerCrashedError(`Server "${server}"${at} became unreachable (${detail}); reconnecting.`, {
    server,
    cause,
  });
}

export function staleSession(fields: { server: string; cause?: unknown }): ServerConnectionError {
  const { server, cause } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Server "${server}" no longer knows this session (HTTP 404); reconnecting.`,
    { server, cause },
  );
}

export function healthCheckFailed(fields: {
  server: string;
  detail: string;
  cause?: unknown;
}): ServerConnectionError {
  const { server, detail, cause } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Server "${server}" did not answer a health-check ping (${detail}); reconnecting.`,
    { server, cause },
  );
}

// --- a transport's own failures, reported through the SDK's transport interface (plain Errors) ---

export const transportStartedTwice = () => new Error("ProcessTransport already started");
export const closedBeforeStart = () => new Error("The transport was closed before the server started");
export const processNotRunning = () => new Error("Not connected: the server process is not running");
/** A stdio server's output that cannot be read as messages any more (`what` it did). */
export const streamBroken = ({ what }: { what: string }) =>
  new Error(`The server ${what}: the stream is broken, so the server is restarted.`);
/** An HTTP response larger than the limit once decompressed. */
export const responseOverLimit = ({ limit }: { limit: number }) =>
  new Error(`HTTP response over ${limit} bytes once decoded`);
/** The SDK's RequestTimeout of a start that ran out of time (startError words what the user reads). */
export const STARTUP_TIMEOUT_TEXT = "startup timeout";
export const STARTUP_DEADLINE_TEXT = "startup deadline reached";
