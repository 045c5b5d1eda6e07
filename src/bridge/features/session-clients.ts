import {
  type Client,
  INVALID_PARAMS,
  ProtocolError,
  type RequestOptions,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import type { ServerConnection } from "../../connection/connection.js";
import {
  ErrorCode,
  McpBridgeError,
  type RequestFields,
  requestAborted,
  requestFailed,
  requestNoSession,
  requestRejected,
  requestServerStopped,
  requestTimeout,
} from "../../errors/index.js";
import { linkAbort } from "../../util/linked-abort.js";
import { errorText } from "../../util/text-of.js";

/** JSON-RPC code the spec gives "resource not found". */
export const RESOURCE_NOT_FOUND_RPC_CODE = -32002;

export interface RequestTarget {
  /** The MCP method, for the error message (`resources/read`). */
  readonly method: string;
  /** What the request is about (a URI, a prompt name), for the error message. */
  readonly item?: string;
}

export interface SessionRequestOptions {
  readonly signal?: AbortSignal;
  /** Milliseconds for the whole request, waiting for a (re)connect included. */
  readonly timeoutMs: number;
}

/**
 * The SDK client of each server's live session, for the requests beyond tool calls (resources,
 * prompts, completions, logging). Every new client of a server passes through `track` before it
 * connects; once the connection reports itself usable, the last client tracked is its session's.
 */
export class SessionClients {
  readonly #latest = new Map<string, Client>();
  /** Masks the bridge's secrets in a server's error text before it becomes an error message. */
  readonly #redact: (text: string) => string;

  /** The server's current connection (a reload may have replaced the one a request started on). */
  readonly #current: (server: string) => ServerConnection | undefined;

  constructor(
    redact: (text: string) => string = (text) => text,
    current: (server: string) => ServerConnection | undefined = () => undefined,
  ) {
    this.#redact = redact;
    this.#current = current;
  }

  track(server: string, client: Client): void {
    this.#latest.set(server, client);
  }

  /** The live client of a connected server, without connecting; undefined when there is none. */
  current(connection: ServerConnection): Client | undefined {
    return connection.state === "connected" ? this.#latest.get(connection.name) : undefined;
  }

  /** The client of the server's newest session, connected or not yet. */
  latest(server: string): Client | undefined {
    return this.#latest.get(server);
  }

  forget(server: string): void {
    this.#latest.delete(server);
  }

  /**
   * Runs one request on the server's live session (connecting it first when lazy or idle), bounded by
   * the timeout and the caller's signal; every failure becomes a McpBridgeError naming server, method
   * and item.
   */
  async request<T>(
    connection: ServerConnection,
    target: RequestTarget,
    options: SessionRequestOptions,
    send: (client: Client, requestOptions: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + options.timeoutMs;
    // A request whose server a reload replaced before the request got through (its connection closed
    // while it waited, or the session it was about to use went away) follows the server to each new
    // connection, within its own timeout.
    let serving = connection;
    for (;;) {
      try {
        return await this.#requestOnce(serving, target, options, deadline, send);
      } catch (error) {
        const next = this.#current(serving.name);
        // The replaced connection was closed under the request (a retired server does not wait for
        // requests beyond tool calls; these are reads and listings, safe to send again).
        const lost =
          serving.state === "closed" ||
          (error instanceof McpBridgeError &&
            (error.code === ErrorCode.BridgeClosed || error.code === ErrorCode.ServerCrashed));
        if (!lost || options.signal?.aborted || !next || next === serving || Date.now() >= deadline)
          throw error;
        serving = next;
      }
    }
  }

  async #requestOnce<T>(
    connection: ServerConnection,
    target: RequestTarget,
    options: SessionRequestOptions,
    deadline: number,
    send: (client: Client, requestOptions: RequestOptions) => Promise<T>,
  ): Promise<T> {
    // The caller's signal may be shared by many requests at once (a host's session signal): the SDK
    // and the connection wait listen on a signal of this request's own, linked to it by one listener.
    const own = new AbortController();
    const unlink = linkAbort(options.signal, own);
    try {
      await connection.ensureConnected({ timeoutMs: Math.max(1, deadline - Date.now()), signal: own.signal });
      // This connection's own session: a reload may already have tracked a newer, unconnected client.
      const client = connection.sessionClient() ?? this.#latest.get(connection.name);
      if (!client) {
        throw requestNoSession({ server: connection.name, ...target });
      }
      const remaining = Math.max(1, deadline - Date.now());
      try {
        return await send(client, { timeout: remaining, signal: own.signal });
      } catch (error) {
        throw classifyRequestError(error, connection.name, target, { ...options, redact: this.#redact });
      }
    } finally {
      unlink();
    }
  }
}

/** One failed request as a typed error; pure, so it is tested without a server. */
export function classifyRequestError(
  error: unknown,
  server: string,
  target: RequestTarget,
  options: {
    readonly signal?: AbortSignal;
    readonly timeoutMs: number;
    readonly redact?: (text: string) => string;
  },
): McpBridgeError {
  if (error instanceof McpBridgeError) return error;
  const redact = options.redact ?? ((text: string) => text);
  const subject: RequestFields = { server, ...target, cause: error, redact };
  if (options.signal?.aborted) return requestAborted(subject);
  if (SdkError.isInstance(error)) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return requestTimeout({ ...subject, timeoutMs: options.timeoutMs });
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
      return requestServerStopped(subject);
  }
  if (error instanceof ProtocolError || ProtocolError.isInstance?.(error)) {
    const protocolError = error as ProtocolError;
    // SDK v2 servers answer a missing resource with -32602 and `data.uri` (ResourceNotFoundError, as the
    // 2026-07-28 spec requires on every revision); earlier servers with -32002. A bare -32602 is an
    // ordinary invalid-params error.
    const notFound =
      protocolError.code === RESOURCE_NOT_FOUND_RPC_CODE ||
      error instanceof ResourceNotFoundError ||
      (protocolError.code === INVALID_PARAMS &&
        typeof (protocolError.data as { uri?: unknown })?.uri === "string");
    return requestRejected({
      ...subject,
      detail: redact(protocolError.message),
      rpcCode: protocolError.code,
      notFound,
    });
  }
  return requestFailed({ ...subject, detail: redact(errorText(error)) });
}
