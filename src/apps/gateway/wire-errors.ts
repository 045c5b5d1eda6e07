import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { ErrorCode, McpBridgeError } from "../../errors/index.js";
import { errorText } from "../../util/text-of.js";

/**
 * Every error answer the gateway puts on the wire, one function per situation: JSON-RPC errors to a
 * downstream client, HTTP answers outside JSON-RPC, and the reasons a question forwarded to a client
 * could not be asked (they reach the upstream server that asked). These are wire data for a peer, not
 * McpBridgeErrors: the wording lives here and nowhere else in the gateway.
 */

/** JSON-RPC server error for a call refused by a per-client limit. */
export const RATE_LIMITED_RPC_CODE = -32029;
/** JSON-RPC error code of a response replaced because its client left too much unread. */
export const UNDELIVERED_RPC_CODE = -32030;
/** JSON-RPC error code of a request line over the stdio message limit. */
export const MESSAGE_TOO_LARGE_RPC_CODE = -32600;
const SESSION_NOT_FOUND_RPC_CODE = -32001;
const TOO_MANY_SESSIONS_RPC_CODE = -32000;

const MiB = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** What a client is told in place of a message it would not have read. */
export function undeliveredMessage(what: string, size: number, unread: number, limit: number): string {
  return (
    `The ${what} (${MiB(size)}) was not sent: this client has ${MiB(unread)} of earlier messages it has ` +
    `not read (limit ${MiB(limit)}). Read the pending responses, then retry.`
  );
}

/** A stdio line over the limit: told to the operator, and to the client when it was a request. */
export const oversizedLineMessage = (bytes: number, limit: number) =>
  `A message of ${bytes} bytes is over the gateway's stdio limit of ${limit} bytes; it was dropped`;

// JSON-RPC errors of the gateway's own making.

/** A tool outside the client's profile is answered exactly like a tool that does not exist. */
export const unknownTool = (name: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);

/**
 * A call to a tool of an upstream server that is down (failed to start, or its config entry is
 * invalid): an error result the model can read, saying what happened and what to do.
 */
export const upstreamDownResult = ({
  name,
  server,
  state,
  reason,
}: {
  name: string;
  server: string;
  state: string;
  reason: string | undefined;
}) => ({
  content: [
    {
      type: "text" as const,
      text:
        `Error: tool "${name}" cannot be called: its server "${server}" is ${state}` +
        `${reason ? ` (${reason})` : ""}. The gateway retries it in the background; fix the server's ` +
        "configuration if the reason says so, then retry the call (its tools are listed again once it connects).",
    },
  ],
  isError: true,
});

/** A call refused before it starts: its client already left its whole backlog unread. */
export const backlogFull = ({ tool, unread, limit }: { tool: string; unread: number; limit: number }) =>
  new ProtocolError(
    UNDELIVERED_RPC_CODE,
    `Call to ${tool} refused: this client has ${MiB(unread)} of earlier messages it has not read ` +
      `(limit ${MiB(limit)}). Read the pending responses, then retry.`,
  );

/** A result abandoned because its client left too much unread (a short error goes instead). */
export const resultUndelivered = ({
  tool,
  size,
  unread,
  limit,
}: {
  tool: string;
  size: number;
  unread: number;
  limit: number;
}) => new ProtocolError(UNDELIVERED_RPC_CODE, undeliveredMessage(`result of ${tool}`, size, unread, limit));

/** `data.retryAfterSeconds`: what HTTP's `Retry-After` says on the REST face, for JSON-RPC clients. */
export const rateLimited = ({
  tool,
  reason,
  retryAfterSeconds,
}: {
  tool: string;
  reason: string;
  retryAfterSeconds: number;
}) =>
  new ProtocolError(
    RATE_LIMITED_RPC_CODE,
    `Call to ${tool} refused: ${reason}; retry in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );

/** A 2026-07-28 retry whose requestState names no parked call of this client. */
export const unknownRequestState = () =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Unknown or expired requestState: the call it belonged to has ended (or runs on another gateway replica); call the tool again",
  );

/**
 * Why a sealed `requestState` (see sealed-state.ts) is refused, one answer per situation. A token of
 * another credential gets the unknown token's answer: a thief learns nothing from it.
 */
export const requestStateRefused = {
  unreadable: unknownRequestState,
  otherCredential: unknownRequestState,
  unknownKey: () =>
    new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Unknown or expired requestState: it was sealed with a key this gateway does not hold (keys rotated, or a replica with other --state-keys); call the tool again",
    ),
  otherCall: () =>
    new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Unknown or expired requestState: it belongs to another tool call; retry with the tool name and arguments of the call that returned it, or call the tool again",
    ),
  expired: () =>
    new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Unknown or expired requestState: the answer came after the gateway's input timeout; call the tool again",
    ),
};

/** An upstream server's sampling request that no downstream client could answer (and no fallback). */
export const samplingNotForwarded = ({ server, cause }: { server: string; cause: string }) =>
  new ProtocolError(ProtocolErrorCode.InternalError, `Sampling for server "${server}" failed: ${cause}`);

/**
 * The answers for something the client cannot reach: the same, word for word, whether it exists on a
 * server outside the profile or nowhere (never with that server's own error text).
 */
export const notReachable = {
  resource: (uri: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`),
  prompt: (name: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`),
  template: (uri: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template: ${uri}`),
};

/** Several reachable servers serve `uri` (only reachable ones are named). */
export const resourceAmbiguous = ({ uri, servers }: { uri: string; servers: readonly string[] }) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Resource ${uri} is served by several servers (${servers.join(", ")}); the gateway cannot tell which one you mean.`,
  );

const CLIENT_ERRORS = new Set<string>([
  ErrorCode.ResourceNotFound,
  ErrorCode.PromptNotFound,
  ErrorCode.InvalidArguments,
  ErrorCode.ToolNotFound,
]);

/**
 * A bridge error becomes a JSON-RPC error the client can act on: invalid params for what the client
 * got wrong (unknown resource or prompt, missing arguments), internal error for upstream failures.
 */
export function protocolErrorOf(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const clientSide = error instanceof McpBridgeError && CLIENT_ERRORS.has(error.code);
  return new ProtocolError(
    clientSide ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
    errorText(error),
  );
}

// HTTP answers of the 2025-11-25 session layer (JSON-RPC bodies, as the protocol has them).

export const sessionNotFound = () =>
  Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: SESSION_NOT_FOUND_RPC_CODE, message: "Session not found: initialize again" },
    },
    { status: 404 },
  );

export const tooManySessions = () =>
  Response.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: TOO_MANY_SESSIONS_RPC_CODE, message: "Too many open sessions; try again later" },
    },
    { status: 503 },
  );

// HTTP answers outside `/mcp`'s JSON-RPC: status, body and extra headers.

export interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export const httpAnswers = {
  notFound: (): HttpAnswer => ({ status: 404, body: { error: "not found" } }),
  draining: (): HttpAnswer => ({
    status: 503,
    body: { error: "draining" },
    headers: { connection: "close" },
  }),
  unauthorized: (headers: Record<string, string>): HttpAnswer => ({
    status: 401,
    body: { error: "unauthorized" },
    headers,
  }),
  internal: (error: unknown): HttpAnswer => ({ status: 500, body: { error: errorText(error) } }),
  /** A request claiming to come from another gateway replica whose signature does not hold. */
  peerRefused: (): HttpAnswer => ({ status: 403, body: { error: "forwarding signature refused" } }),
  /** The replica a request was forwarded to failed after it may have started on it. */
  peerFailed: (): HttpAnswer => ({
    status: 502,
    body: {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32603,
        message:
          "The gateway replica holding this session stopped answering; the request may or may not have run there. Retry it, or initialize a new session.",
      },
    },
  }),
  /** A request body that is not JSON (forwarded requests are parsed before they are served). */
  notJson: (): HttpAnswer => ({
    status: 400,
    body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not JSON" } },
  }),
  /** A request body over the gateway's limit. */
  tooLarge: (limit: number): HttpAnswer => ({
    status: 413,
    body: {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${limit} bytes` },
    },
    headers: { connection: "close" },
  }),
};

// Why a question an upstream server asked could not go to the downstream client. The forwarder then
// answers with its default; for sampling the reason reaches the asking server in its error.

export const questionRefused = {
  notDeclared: (method: string) => new Error(`the client did not declare ${method}`),
  anotherOpen: () => new Error("another question of this call is open"),
  noAnswer: () => new Error("the client's retry carried no answer"),
  notAskable: () => new Error("this request cannot be asked a question"),
  /** The parked call ended before its client answered; `why` is one of `parkedCallEnd`. */
  ended: (why: string) => new Error(why),
};

export const parkedCallEnd = {
  closing: "the gateway is closing",
  noAnswerInTime: "the client did not answer in time",
} as const;

/** The issuer's signing keys could not be fetched: the reason a token is refused (in its 401). */
export const jwksUnreadable = ({ url, cause }: { url: string; cause: unknown }) =>
  new Error(`the JWKS at ${url} could not be read (${errorText(cause)})`, { cause });

/** A line of the stdio channel that is not JSON-RPC: the answer to its sender (id unknown). */
export const PARSE_ERROR_RPC_CODE = -32700;
export const unparsableLineMessage = "Parse error: the line is not JSON";

// The stdio channel's own failures to send (the SDK's transport contract wants an Error).

export const stdioChannel = {
  closed: () => new Error("The stdio channel to the client is closed"),
  notReading: () => new Error("The client stopped reading; the stdio channel was closed"),
  requestUndelivered: (method: string, size: number, unread: number, limit: number) =>
    new Error(undeliveredMessage(`request ${method}`, size, unread, limit)),
};

/** An upstream round asked for something this client did not declare and nothing answers by default. */
export const inputNotAnswerable = (method: string) => ({
  content: [
    {
      type: "text" as const,
      text: `Error: the server asked this client for ${method.replace(/[^\w/.-]/g, "?").slice(0, 64)}, which it did not declare; declare that capability to let the call go on.`,
    },
  ],
  isError: true,
});
