/**
 * The OpenTelemetry semantic conventions for MCP, as pure functions over JSON-RPC messages: span
 * names, attributes, the outcome of a response, and W3C trace context in `params._meta`. Nothing
 * here touches the OpenTelemetry API, so it is tested without it.
 */

/** Attribute keys of the MCP conventions (and the general ones they reuse). */
export const ATTR = {
  method: "mcp.method.name",
  protocolVersion: "mcp.protocol.version",
  sessionId: "mcp.session.id",
  resourceUri: "mcp.resource.uri",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  requestId: "jsonrpc.request.id",
  statusCode: "rpc.response.status_code",
  errorType: "error.type",
  networkTransport: "network.transport",
  networkProtocol: "network.protocol.name",
  serverAddress: "server.address",
  serverPort: "server.port",
  clientAddress: "client.address",
  clientPort: "client.port",
} as const;

/**
 * Not an MCP convention: the gateway's tool calls being answered right now, per process. A pod's
 * load is its calls waiting on upstream servers (mostly idle CPU), so this is what an autoscaler
 * should follow (deploy/k8s/hpa.yaml); Prometheus shows it as `mcp_bridge_gateway_calls_in_flight`.
 */
export const GATEWAY_CALLS_IN_FLIGHT_METRIC = "mcp_bridge.gateway.calls.in_flight";
/**
 * Not an MCP convention: 1 while the gateway's cluster store (`--store`) answers, 0 while this replica
 * works alone; Prometheus shows it as `mcp_bridge_gateway_store_up`.
 */
export const GATEWAY_STORE_UP_METRIC = "mcp_bridge.gateway.store.up";
export const CLIENT_DURATION_METRIC = "mcp.client.operation.duration";
export const SERVER_DURATION_METRIC = "mcp.server.operation.duration";

/** The bucket boundaries (seconds) the conventions ask for on both operation-duration histograms. */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** `error.type` of a tools/call whose result has `isError: true`. */
export const TOOL_ERROR = "tool_error";
/** `error.type` of a request the client cancelled (its timeout or the caller's signal). */
export const CANCELLED = "cancelled";
/** `error.type` of a request still unanswered when its transport closed. */
export const TRANSPORT_CLOSED = "transport_closed";
/** The conventions' fallback `error.type`. */
export const OTHER_ERROR = "_OTHER";

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/**
 * One attribute set made of several, later ones winning. A loop rather than object spread: a spread
 * of these dotted keys followed by one more key costs microseconds (V8 leaves the fast path), and
 * this runs for every request.
 */
export function mergeAttributes(...sets: readonly (Attributes | undefined)[]): Attributes {
  const merged: Attributes = {};
  for (const set of sets) {
    if (set === undefined) continue;
    for (const key in set) merged[key] = set[key] as AttributeValue;
  }
  return merged;
}

/** Longest server-supplied string copied into an attribute or a status message. */
const MAX_ATTRIBUTE_CHARS = 1024;

function capped(value: string): string {
  return value.length > MAX_ATTRIBUTE_CHARS ? value.slice(0, MAX_ATTRIBUTE_CHARS) : value;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringField(value: Record<string, unknown> | undefined, key: string): string | undefined {
  const field = value?.[key];
  return typeof field === "string" ? capped(field) : undefined;
}

/** What the conventions take from a request or notification: its method and its target. */
export interface Operation {
  readonly method: string;
  /** Span name: `{mcp.method.name} {target}` with the tool or prompt name as target, else the method. */
  readonly spanName: string;
  /** Attributes for both the span and the duration metric (low cardinality). */
  readonly attributes: Attributes;
  /** Attributes for the span only (request id, resource URI: unbounded cardinality). */
  readonly spanAttributes: Attributes;
}

export function operationOf(method: string, params: unknown, id?: unknown): Operation {
  const fields = record(params);
  const attributes: Attributes = { [ATTR.method]: method };
  const spanAttributes: Attributes = {};
  let target: string | undefined;
  if (method === "tools/call") {
    target = stringField(fields, "name");
    if (target !== undefined) attributes[ATTR.toolName] = target;
    attributes[ATTR.operationName] = "execute_tool";
  } else if (method === "prompts/get") {
    target = stringField(fields, "name");
    if (target !== undefined) attributes[ATTR.promptName] = target;
  } else if (
    method === "resources/read" ||
    method === "resources/subscribe" ||
    method === "resources/unsubscribe" ||
    method === "notifications/resources/updated"
  ) {
    const uri = stringField(fields, "uri");
    if (uri !== undefined) spanAttributes[ATTR.resourceUri] = uri;
  }
  if (typeof id === "string" || typeof id === "number") spanAttributes[ATTR.requestId] = capped(String(id));
  return {
    method,
    spanName: target === undefined ? method : `${method} ${target}`,
    attributes,
    spanAttributes,
  };
}

/** How a request ended, as the conventions record it. */
export interface Outcome {
  /** `error.type`; undefined for a success. */
  readonly errorType?: string;
  /** `rpc.response.status_code`: the JSON-RPC error code, when the response is an error. */
  readonly statusCode?: string;
  /** The span status description: the JSON-RPC error's message (capped). */
  readonly message?: string;
}

/**
 * The outcome of a response to `method`: a JSON-RPC error is `error.type` = its code, a tools/call
 * result with `isError: true` is `tool_error`, anything else a success.
 */
export function outcomeOf(method: string, response: Record<string, unknown>): Outcome {
  const error = record(response.error);
  if (error) {
    const code =
      typeof error.code === "number" || typeof error.code === "string" ? String(error.code) : undefined;
    const message = stringField(error, "message");
    return {
      errorType: code ?? OTHER_ERROR,
      statusCode: code,
      message,
    };
  }
  if (method === "tools/call" && record(response.result)?.isError === true) return { errorType: TOOL_ERROR };
  return {};
}

/**
 * `error.type` of a failure that is not a JSON-RPC response (a send that failed, a handler that
 * threw): an HTTP status, else a stable code the error carries, else its class name.
 */
export function errorTypeOf(error: unknown): string {
  const fields = record(error);
  if (!fields) return OTHER_ERROR;
  for (const key of ["status", "statusCode"]) {
    const status = fields[key];
    if (typeof status === "number" && Number.isInteger(status)) return String(status);
  }
  if (typeof fields.code === "string" && fields.code.length > 0) return capped(fields.code);
  if (typeof fields.code === "number") return String(fields.code);
  const name = error instanceof Error ? error.name : undefined;
  return name ? capped(name) : OTHER_ERROR;
}

// --- W3C trace context in params._meta ---

export const TRACEPARENT = "traceparent";
export const TRACESTATE = "tracestate";

export interface RemoteSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState?: string;
}

const TRACEPARENT_PATTERN = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/** tracestate is at most 32 list members of at most 256 characters each. */
const MAX_TRACESTATE_CHARS = 32 * 257;

/**
 * The span context of a W3C `traceparent` (and `tracestate`), or undefined for anything that is not
 * a valid one: the values come from the peer and are untrusted.
 */
export function parseTraceparent(traceparent: unknown, tracestate?: unknown): RemoteSpanContext | undefined {
  if (typeof traceparent !== "string" || traceparent.length > 512) return undefined;
  const match = TRACEPARENT_PATTERN.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  // Version ff is invalid; version 00 has exactly four fields.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  const state =
    typeof tracestate === "string" && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE_CHARS
      ? tracestate
      : undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 0xff,
    traceState: state,
  };
}

export function formatTraceparent(context: { traceId: string; spanId: string; traceFlags: number }): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** `params._meta` of a request or notification, when it is an object. */
export function metaOf(params: unknown): Record<string, unknown> | undefined {
  return record(record(params)?._meta);
}

/** The `_meta` key where requests of the stateless protocol era carry their protocol version. */
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

/** The protocol version a request names in its `_meta` envelope, if any. */
export function protocolVersionIn(params: unknown): string | undefined {
  return stringField(metaOf(params), PROTOCOL_VERSION_META);
}

/** A copy of `params` whose `_meta` also holds `entries` (the original is left as it was). */
export function withMeta(params: unknown, entries: Record<string, string>): Record<string, unknown> {
  const fields = record(params) ?? {};
  return { ...fields, _meta: { ...(metaOf(params) ?? {}), ...entries } };
}

/** Attributes of the peer a server definition names: `network.transport`, `server.address`/`port`. */
export function peerAttributes(
  peer:
    | { readonly transport: "stdio" }
    | { readonly transport: "in-process" }
    | { readonly transport: "http" | "sse"; readonly url: string },
): Attributes {
  if (peer.transport === "stdio") return { [ATTR.networkTransport]: "pipe" };
  // The older conventions' value for a peer in the same process (the current list has none).
  if (peer.transport === "in-process") return { [ATTR.networkTransport]: "inproc" };
  const attributes: Attributes = { [ATTR.networkTransport]: "tcp", [ATTR.networkProtocol]: "http" };
  try {
    const url = new URL(peer.url);
    attributes[ATTR.serverAddress] = url.hostname.replace(/^\[|\]$/g, "");
    attributes[ATTR.serverPort] = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  } catch {
    // A URL the config already accepted; nothing to add when it does not parse here.
  }
  return attributes;
}
