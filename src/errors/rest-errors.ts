/**
 * The gateway's REST face (`serve --http`: `/openapi.json`, `/tools/{name}`, ...): what an HTTP client
 * got wrong or was refused. Nothing here names a tool, prompt or server the caller cannot see: an
 * item outside its profile is answered with the same words as one that does not exist.
 */
import {
  ErrorCode,
  InvalidArgumentsError,
  McpBridgeError,
  ServerConnectionError,
  ToolNotFoundError,
} from "./error-classes.js";

export function restRouteNotFound(fields: { path: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `Nothing is served at ${fields.path}; GET /openapi.json lists the operations.`,
  );
}

export function restMethodNotAllowed(fields: { method: string; path: string; allow: readonly string[] }) {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `${fields.method} is not allowed on ${fields.path}; use ${fields.allow.join(" or ")}.`,
  );
}

export function restBodyTooLarge(fields: { maxBytes: number }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `The request body is larger than ${fields.maxBytes} bytes; send smaller arguments.`,
  );
}

/** A body that is not one JSON object: unparsable, an array, a string, ... */
export function restBodyNotObject(fields: { problem: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `The request body must be one JSON object of arguments (${fields.problem}).`,
  );
}

export function restMissingParameter(fields: { parameter: string; path: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `${fields.path} needs the query parameter "${fields.parameter}".`,
  );
}

export function restUnauthorized(): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.Auth,
    "A valid bearer token is required: send `Authorization: Bearer TOKEN` with a token the gateway accepts.",
  );
}

/** Unknown, or outside the caller's profile: the same answer, so hidden tools are never revealed. */
export function restToolNotFound(fields: { name: string }): ToolNotFoundError {
  return new ToolNotFoundError(
    `No tool named "${fields.name}" on this gateway; GET /tools or /openapi.json lists the tools you can call.`,
    { tool: fields.name },
  );
}

export function restServerNotFound(fields: { server: string }): ServerConnectionError {
  return new ServerConnectionError(
    ErrorCode.ServerNotFound,
    `No server named "${fields.server}" on this gateway.`,
  );
}

export function restPromptNotFound(fields: { name: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.PromptNotFound,
    `No prompt named "${fields.name}" on this gateway; GET /prompts lists them.`,
  );
}

export function restResourceNotFound(fields: { uri: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.ResourceNotFound,
    `No resource ${fields.uri} on this gateway; GET /resources lists them.`,
  );
}

export function restResourceAmbiguous(fields: { uri: string; servers: readonly string[] }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.ResourceAmbiguous,
    `Resource ${fields.uri} is served by several servers (${fields.servers.join(", ")}); name one with &server=NAME.`,
  );
}

/** Prompt arguments are strings (MCP): anything else is refused before the upstream is asked. */
export function restPromptArgumentNotString(fields: { name: string; argument: string }) {
  return new InvalidArgumentsError(
    `Argument "${fields.argument}" of prompt "${fields.name}" must be a string.`,
    { issues: [{ path: fields.argument, message: "expected a string" }] },
  );
}

export function restRateLimited(fields: { tool: string; reason: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.RateLimited,
    `Call to ${fields.tool} refused: ${fields.reason}; retry later.`,
    { tool: fields.tool },
  );
}

/** A Host or Origin header a loopback gateway does not answer to (DNS rebinding from a web page). */
export function restRefusedHost(fields: { detail: string }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `${fields.detail}: a gateway bound to a loopback address answers loopback names only.`,
  );
}

export function restUnknownFormat(fields: { format: string; known: readonly string[] }): McpBridgeError {
  return new McpBridgeError(
    ErrorCode.BadRequest,
    `Unknown format "${fields.format}"; use ${fields.known.join(", ")}.`,
  );
}

export function restDraining(): ServerConnectionError {
  return new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    "The gateway is shutting down and takes no new requests; retry on another replica or after it restarts.",
  );
}
