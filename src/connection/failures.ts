import { ProtocolError, SdkError, SdkErrorCode, UnauthorizedError } from "@modelcontextprotocol/client";
import {
  isRemote,
  type ResourceLimits,
  type SandboxPolicy,
  type ServerDefinition,
  type TransportKind,
} from "../config/model.js";
import * as errors from "../errors/index.js";
import {
  type AbortError,
  McpBridgeError,
  type ServerConnectionError,
  type ServerCrashedError,
  type ToolTimeoutError,
} from "../errors/index.js";
import type { ExitInfo } from "../transport/process-transport.js";
import { limitHit } from "../transport/sandbox/resource-limits.js";
import { bwrapComplaint, sandboxWithheld } from "../transport/sandbox/withheld.js";
import { httpStatusOf, RESULT_TOO_LARGE_RPC_CODE } from "../transport/transport-kinds.js";
import { STDERR_HINT } from "../util/stderr-hint.js";
import { errorText } from "../util/text-of.js";

/**
 * Pure translation of what went wrong (an exit, a stderr tail, an SDK or network error) into a typed
 * McpBridgeError whose message names the server, says what failed and what to do. Every piece of
 * server or config text passes through `redact` first.
 */
export interface FailureContext {
  readonly server: string;
  readonly transport: TransportKind;
  /** The stdio command, for "cannot run" messages. */
  readonly command?: string;
  /** The remote URL (redacted before use). */
  readonly url?: string;
  readonly redact: (text: string) => string;
  /** The server's last stderr lines, oldest first. */
  readonly stderr: readonly string[];
  /** The sandbox a stdio server runs in, for what it withheld when the start fails. */
  readonly sandbox?: SandboxPolicy | undefined;
  /** The resource limits of a stdio server, for the limit that stopped it. */
  readonly limits?: ResourceLimits | undefined;
}

/** The failure context of a server: its definition's command or URL, and its last stderr lines. */
export function failureContext(
  definition: ServerDefinition,
  redact: (text: string) => string,
  stderr: readonly string[],
): FailureContext {
  return {
    server: definition.name,
    transport: definition.transport,
    ...(definition.transport === "stdio"
      ? { command: definition.command, sandbox: definition.sandbox, limits: definition.limits }
      : {}),
    ...(definition.transport === "http" || definition.transport === "sse" ? { url: definition.url } : {}),
    redact,
    stderr,
  };
}

/** Lines of stderr shown at the end of a failure message besides the line that explains it. */
const STDERR_HINT_TAIL = 3;

/**
 * A line that states why a process failed, as opposed to stack frames and the runtime's trailer
 * (`    at ...`, `requireStack: []`, `}`, `Node.js v20`): `Error: ...`, `TypeError: ...`,
 * `Cannot find module ...`, Python's `ValueError: ...`, Go's `panic: ...`, `fatal: ...`.
 */
const EXPLAINING_LINE =
  /^\s*(?:(?:Uncaught\s+)?[A-Za-z_$][\w$.]*(?:Error|Exception)\b|Error\b|Cannot find (?:module|package)\b|panic:|fatal(?: error)?:|error:)/i;

/**
 * The stderr lines worth showing in a one-line failure: the last line that explains the failure
 * (when it is not already in the tail) followed by the last few non-empty lines.
 */
export function pickStderrLines(lines: readonly string[], tail = STDERR_HINT_TAIL): string[] {
  const nonEmpty = lines.filter((line) => line.trim() !== "");
  const last = nonEmpty.slice(-tail);
  const tailStart = nonEmpty.length - last.length;
  for (let index = nonEmpty.length - 1; index >= 0; index--) {
    const line = nonEmpty[index] as string;
    if (!EXPLAINING_LINE.test(line) || /^\s+at\s/.test(line)) continue;
    if (index >= tailStart) return last;
    return [line.trim(), "…", ...last];
  }
  return last;
}

export function stderrHint(context: FailureContext): string {
  const lines = pickStderrLines(context.stderr);
  return lines.length > 0 ? `${STDERR_HINT}${context.redact(lines.join(" | "))}` : "";
}

/** What the sandbox withheld that the stderr tail shows, as the sentence a start failure adds ("" when nothing). */
export function withheldHint(context: FailureContext): string {
  if (context.sandbox === undefined) return "";
  const withheld = sandboxWithheld(context.stderr, context.sandbox, context.command);
  if (withheld === undefined) return "";
  const redacted =
    withheld.kind === "read" || withheld.kind === "write"
      ? { ...withheld, path: context.redact(withheld.path) }
      : withheld;
  return errors.sandboxWithheldHint(redacted);
}

/** The sentence a failure adds when a resource limit stopped the server ("" when none shows). */
export function limitHint(context: FailureContext, exit: ExitInfo | undefined): string {
  const kind = limitHit(context.limits, exit, context.stderr);
  const value = kind === undefined ? undefined : context.limits?.[kind];
  return kind === undefined || value === undefined ? "" : errors.limitHitHint({ kind, value });
}

export function describeError(error: unknown, redact: (text: string) => string): string {
  return redact(errorText(error));
}

const NETWORK_CODES =
  /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CLOSED|UND_ERR_CONNECT_TIMEOUT)$/;

/** The system error code of a network failure somewhere in an error's cause chain (ECONNREFUSED, ...). */
export function networkErrorCode(error: unknown): string | undefined {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 20; seen++) {
    const current = queue.shift();
    if (!current || typeof current !== "object") continue;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.test(code)) return code;
    queue.push((current as { cause?: unknown }).cause);
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) queue.push(...errors.slice(0, 5));
  }
  return undefined;
}

/** Failures after which the remote server is not reachable any more (the session is lost). */
export function isNetworkFailure(error: unknown): boolean {
  const code = networkErrorCode(error);
  if (code && /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)) return true;
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof TypeError && current.message === "fetch failed") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

const NETWORK_WORDING: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused: nothing is listening there; start the server or fix the URL's port",
  ENOTFOUND: "host not found: check the URL's host name",
  EAI_AGAIN: "host name lookup failed: check the URL's host name and the network",
  EHOSTUNREACH: "host unreachable: check the URL and the network",
  ENETUNREACH: "network unreachable: check the network",
  ETIMEDOUT: "connection timed out: check the URL and any firewall",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out: check the URL and any firewall",
  ECONNRESET: "connection reset by the server",
};

function where(context: FailureContext): string {
  return !isRemote(context.transport) || context.url === undefined
    ? ""
    : ` at ${context.redact(context.url)}`;
}

export function exitWording(exit: ExitInfo): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

export function endlessListing(server: string, what: string): McpBridgeError {
  return errors.endlessListing({ server, what });
}

export function authorizationFailed(
  server: string,
  error: unknown,
  redact: (text: string) => string,
): McpBridgeError {
  return errors.authorizationFailed({ server, detail: describeError(error, redact), cause: error });
}

export function closedWhileStarting(server: string): McpBridgeError {
  return errors.closedWhileStarting({ server });
}

export interface StartFailureDetails {
  /** How the server process ended, when it has. */
  readonly exit?: ExitInfo | undefined;
  readonly timeoutMs: number;
  /** The page cap of a listing (see session.ts), for the message of a listing cut off. */
  readonly maxListPages: number;
}

/** Why one connect attempt failed. */
export function startFailure(
  error: unknown,
  context: FailureContext,
  details: StartFailureDetails,
): McpBridgeError {
  if (error instanceof McpBridgeError) return error;
  const server = context.server;
  const fields = {
    server,
    cause: error,
    stderrTail: context.stderr.map(context.redact),
    withheld: withheldHint(context),
  };
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (context.transport === "stdio" && (code === "ENOENT" || code === "EACCES")) {
    return errors.commandNotRunnable({ ...fields, command: context.command ?? "", errno: code });
  }
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.ListPaginationExceeded) {
    return endlessListing(server, `sent more than ${details.maxListPages} pages`);
  }
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
    return errors.handshakeTimeout({
      ...fields,
      timeoutMs: details.timeoutMs,
      stderrHint: stderrHint(context),
    });
  }
  const complaint = context.sandbox && details.exit ? bwrapComplaint(context.stderr) : undefined;
  if (complaint !== undefined) return errors.sandboxSetupFailed({ server, detail: complaint });
  if (details.exit) {
    const exit = exitWording(details.exit);
    const withheld = limitHint(context, details.exit) + fields.withheld;
    return errors.exitedBeforeHandshake({ ...fields, withheld, exit, stderrHint: stderrHint(context) });
  }
  const status = httpStatusOf(error);
  if (status === 401 || UnauthorizedError.isInstance(error)) {
    return errors.authorizationRequired({ ...fields, at: where(context) });
  }
  const network = isRemote(context.transport) ? networkErrorCode(error) : undefined;
  const wording = network ? NETWORK_WORDING[network] : undefined;
  if (wording) {
    return errors.networkUnreachable({ ...fields, at: where(context), wording });
  }
  const detail = describeError(error, context.redact);
  return errors.connectFailed({
    ...fields,
    at: where(context),
    status,
    detail,
    stderrHint: stderrHint(context),
  });
}

/** A session that ended without us closing it. */
export function unexpectedStop(context: FailureContext, exit: ExitInfo | undefined): ServerCrashedError {
  const how = exit ? (exit.signal ? ` (killed by ${exit.signal})` : ` (exit code ${exit.code})`) : "";
  return errors.unexpectedStop({
    server: context.server,
    how,
    limit: limitHint(context, exit),
    stderrHint: stderrHint(context),
  });
}

export function becameUnreachable(context: FailureContext, error: unknown): ServerCrashedError {
  const detail = describeError(error, context.redact);
  return errors.becameUnreachable({ server: context.server, at: where(context), detail, cause: error });
}

export function staleSession(server: string, cause: unknown): ServerConnectionError {
  return errors.staleSession({ server, cause });
}

export function healthCheckFailed(context: FailureContext, error: unknown): ServerConnectionError {
  const detail = describeError(error, context.redact);
  return errors.healthCheckFailed({ server: context.server, detail, cause: error });
}

export function timeoutError(server: string, tool: string, timeoutMs: number, detail = ""): ToolTimeoutError {
  return errors.toolTimeout({ server, tool, timeoutMs, detail });
}

export function abortError(server: string, tool: string | undefined, cause?: unknown): AbortError {
  return errors.aborted({ server, tool, cause });
}

export function unavailableError(
  context: Pick<FailureContext, "server" | "redact">,
  state: string,
  lastError: McpBridgeError | undefined,
  tool: string | undefined,
): ServerConnectionError {
  const reason = lastError ? context.redact(lastError.message) : undefined;
  // The message names the server only: the caller's error already says which tool was called.
  return errors.serverUnavailable({ server: context.server, state, reason, tool });
}

export function closedError(server: string, tool: string | undefined): McpBridgeError {
  return errors.serverClosed({ server, tool });
}

export function disabledError(server: string, tool: string | undefined): ServerConnectionError {
  return errors.serverDisabled({ server, tool });
}

export interface CallFailureDetails {
  readonly tool: string;
  readonly timeoutMs: number;
  readonly aborted: boolean;
  /** The session's transport has closed. */
  readonly sessionDead: boolean;
  /** Why the stdio server stopped, when the connection already knows (its session is gone). */
  readonly exitReason?: string | undefined;
}

/** What a failed tool call means: the error for the caller, and whether the session is lost. */
export interface CallFailure {
  readonly error: McpBridgeError;
  /** The session can no longer be trusted; the connection replaces it. */
  readonly abandon: boolean;
}

export function crashError(
  context: FailureContext,
  details: CallFailureDetails,
  cause: unknown,
): ServerCrashedError {
  const { server } = context;
  const { tool } = details;
  if (isRemote(context.transport)) {
    const detail = describeError(cause, context.redact);
    return errors.unreachableDuringCall({ server, tool, at: where(context), detail, cause });
  }
  return errors.stoppedDuringCall({ server, tool, exit: details.exitReason, cause });
}

export function callFailure(
  error: unknown,
  context: FailureContext,
  details: CallFailureDetails,
): CallFailure {
  const kept = (failure: McpBridgeError): CallFailure => ({ error: failure, abandon: false });
  if (error instanceof McpBridgeError) return kept(error);
  const { server } = context;
  const { tool } = details;
  const fields = { server, tool, cause: error };
  if (details.aborted) return kept(abortError(server, tool, error));
  if (SdkError.isInstance(error)) {
    switch (error.code) {
      case SdkErrorCode.RequestTimeout:
        return kept(timeoutError(server, tool, details.timeoutMs));
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
        return kept(crashError(context, details, error));
      case SdkErrorCode.SendFailed:
      case SdkErrorCode.ClientHttpFailedToOpenStream:
        return { error: crashError(context, details, error), abandon: true };
      default:
        break;
    }
  }
  if (ProtocolError.isInstance?.(error) || error instanceof ProtocolError) {
    const protocolError = error as ProtocolError;
    if (protocolError.code === RESULT_TOO_LARGE_RPC_CODE) {
      return kept(errors.resultTooLarge({ ...fields, detail: protocolError.message }));
    }
    const detail = describeError(protocolError, context.redact);
    return kept(errors.toolRejected({ ...fields, detail, rpcCode: protocolError.code }));
  }
  if (details.sessionDead) return kept(crashError(context, details, error));
  if (isRemote(context.transport) && (isNetworkFailure(error) || (httpStatusOf(error) ?? 0) >= 500)) {
    return { error: crashError(context, details, error), abandon: true };
  }
  return kept(errors.toolFailed({ ...fields, detail: describeError(error, context.redact) }));
}
