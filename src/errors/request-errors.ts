/**
 * Requests other than tool calls (resources/read, prompts/get, completion/complete, ...): each names
 * the server, the MCP method and the item. `redact` (default: none) is applied to the method and
 * item where the message quotes them; the error's `item` field keeps the item as given.
 */
import { AbortError, ErrorCode, ServerCrashedError, ServerRequestError } from "./error-classes.js";

export interface RequestFields {
  server: string;
  method: string;
  item?: string | undefined;
  cause?: unknown;
  redact?: ((text: string) => string) | undefined;
}

function what(fields: RequestFields): string {
  const described = fields.item === undefined ? fields.method : `${fields.method} "${fields.item}"`;
  return fields.redact ? fields.redact(described) : described;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function errorFields({ server, method, item, cause }: RequestFields) {
  return { server, method, item, cause };
}

export function requestNoSession(fields: RequestFields): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.RequestFailed,
    `Server "${fields.server}" has no live session for ${what(fields)}.`,
    errorFields(fields),
  );
}

export function requestAborted(fields: RequestFields): AbortError {
  const { server, cause } = fields;
  return new AbortError(`${capitalize(what(fields))} on server "${server}" was aborted by the caller.`, {
    server,
    cause,
  });
}

export function requestTimeout(fields: RequestFields & { timeoutMs: number }): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.RequestTimeout,
    `${capitalize(what(fields))} on server "${fields.server}" did not finish within ${fields.timeoutMs} ms; the request was cancelled.`,
    errorFields(fields),
  );
}

export function requestServerStopped(fields: RequestFields): ServerCrashedError {
  const { server, cause } = fields;
  return new ServerCrashedError(
    `Server "${server}" stopped during ${what(fields)}. mcp-bridge reconnects automatically; retry.`,
    { server, cause },
  );
}

/**
 * The server answered with a JSON-RPC error; `notFound` (the resource-not-found RPC code) makes it
 * RESOURCE_NOT_FOUND. `detail` is the server's redacted message.
 */
export function requestRejected(
  fields: RequestFields & { detail: string; rpcCode: number; notFound?: boolean },
): ServerRequestError {
  const { server, detail, rpcCode, notFound } = fields;
  return new ServerRequestError(
    notFound ? ErrorCode.ResourceNotFound : ErrorCode.RequestFailed,
    `Server "${server}" rejected ${what(fields)}: ${detail} (JSON-RPC ${rpcCode})`,
    { ...errorFields(fields), rpcCode },
  );
}

export function requestFailed(fields: RequestFields & { detail: string }): ServerRequestError {
  return new ServerRequestError(
    ErrorCode.RequestFailed,
    `${capitalize(what(fields))} on server "${fields.server}" failed: ${fields.detail}`,
    errorFields(fields),
  );
}

export function promptNotFound(fields: { name: string }): ServerRequestError {
  const { name } = fields;
  return new ServerRequestError(
    ErrorCode.PromptNotFound,
    `Unknown prompt "${name}". Run \`mcp-bridge prompts\` to list them; use an exposed name or "server/prompt".`,
    { method: "prompts/get", item: name },
  );
}

/** Several servers serve `uri`; the first of `servers` is the error's server. */
export function resourceAmbiguous(fields: { uri: string; servers: readonly string[] }): ServerRequestError {
  const { uri, servers } = fields;
  return new ServerRequestError(
    ErrorCode.ResourceAmbiguous,
    `Resource "${uri}" is served by servers ${servers.map((s) => `"${s}"`).join(" and ")}; choose one with --server NAME (CLI) or { server } (library).`,
    { method: "resources/read", item: uri, server: servers[0] },
  );
}

export function resourceNotFound(fields: { uri: string; searched: readonly string[] }): ServerRequestError {
  const { uri, searched } = fields;
  return new ServerRequestError(
    ErrorCode.ResourceNotFound,
    `No connected server serves resource "${uri}" (searched ${searched.length ? searched.map((s) => `"${s}"`).join(", ") : "no connected server"}). Run \`mcp-bridge resources\` to list them, or name the server (CLI: --server NAME; library: { server }).`,
    { method: "resources/read", item: uri },
  );
}
