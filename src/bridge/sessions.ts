import {
  type Client,
  ProtocolError,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import type { ServerConnection } from "../connection/connection.js";
import { AbortError, ErrorCode, McpBridgeError, ServerCrashedError, ServerRequestError } from "../errors.js";
import { errorText } from "../util/text-of.js";

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
    await connection.ensureConnected({
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const client = this.#latest.get(connection.name);
    if (!client) {
      throw new ServerRequestError(
        ErrorCode.RequestFailed,
        `Server "${connection.name}" has no live session for ${describe(target)}.`,
        { server: connection.name, ...target },
      );
    }
    const remaining = Math.max(1, deadline - Date.now());
    try {
      return await send(client, {
        timeout: remaining,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      throw classifyRequestError(error, connection.name, target, options);
    }
  }
}

function describe(target: RequestTarget): string {
  return target.item === undefined ? target.method : `${target.method} "${target.item}"`;
}

/** One failed request as a typed error; pure, so it is tested without a server. */
export function classifyRequestError(
  error: unknown,
  server: string,
  target: RequestTarget,
  options: { readonly signal?: AbortSignal; readonly timeoutMs: number },
): McpBridgeError {
  if (error instanceof McpBridgeError) return error;
  const fields = { server, ...target, cause: error };
  const what = describe(target);
  if (options.signal?.aborted) {
    return new AbortError(`${capitalize(what)} on server "${server}" was aborted by the caller.`, {
      server,
      cause: error,
    });
  }
  if (SdkError.isInstance(error)) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new ServerRequestError(
        ErrorCode.RequestTimeout,
        `${capitalize(what)} on server "${server}" did not finish within ${options.timeoutMs} ms; the request was cancelled.`,
        fields,
      );
    }
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) {
      return new ServerCrashedError(
        `Server "${server}" stopped during ${what}. mcp-bridge reconnects automatically; retry.`,
        { server, cause: error },
      );
    }
  }
  if (error instanceof ProtocolError || ProtocolError.isInstance?.(error)) {
    const protocolError = error as ProtocolError;
    const notFound = protocolError.code === RESOURCE_NOT_FOUND_RPC_CODE;
    return new ServerRequestError(
      notFound ? ErrorCode.ResourceNotFound : ErrorCode.RequestFailed,
      `Server "${server}" rejected ${what}: ${protocolError.message} (JSON-RPC ${protocolError.code})`,
      { ...fields, rpcCode: protocolError.code },
    );
  }
  const message = errorText(error);
  return new ServerRequestError(
    ErrorCode.RequestFailed,
    `${capitalize(what)} on server "${server}" failed: ${message}`,
    fields,
  );
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}
