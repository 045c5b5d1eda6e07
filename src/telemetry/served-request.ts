import type { Telemetry } from "./create-telemetry.js";
import { contextFromMeta } from "./propagation.js";
import {
  ATTR,
  type Attributes,
  errorTypeOf,
  mergeAttributes,
  metaOf,
  type Outcome,
  operationOf,
  outcomeOf,
} from "./semconv.js";

/** One request an MCP server (the gateway) received, as the conventions describe it. */
export interface ServedRequest {
  readonly method: string;
  readonly params?: unknown;
  readonly id?: string | number;
  readonly sessionId?: string;
  readonly protocolVersion?: string;
  /** `network.transport`, `client.address`, `client.port`, ... of the connection it came on. */
  readonly peer?: Attributes;
}

/**
 * Runs `handle` for a request received by an MCP server, under a SERVER span `{mcp.method.name}
 * {target}` whose parent is the trace context the client sent in `params._meta` (so a client, this
 * server and the servers it calls in turn form one trace), and records `mcp.server.operation.duration`.
 * Without telemetry it is `handle()`. The outcome is read from the result (a tools/call result with
 * `isError` is `tool_error`) or from what `handle` threw (its JSON-RPC code when it has one).
 */
export async function traceServedRequest<T>(
  telemetry: Telemetry | undefined,
  request: ServedRequest,
  handle: () => Promise<T>,
): Promise<T> {
  if (telemetry === undefined) return handle();
  const { api, tracer } = telemetry;
  if (!telemetry.recording()) {
    // No span, but the requests `handle` sends on still carry the client's trace context.
    const active = api.context.active();
    const parent = contextFromMeta(telemetry, active, metaOf(request.params));
    return parent === active ? handle() : api.context.with(parent, handle);
  }
  const operation = operationOf(request.method, request.params, request.id);
  const attributes = mergeAttributes(request.peer, operation.attributes);
  if (request.protocolVersion !== undefined) attributes[ATTR.protocolVersion] = request.protocolVersion;
  const spanAttributes = mergeAttributes(attributes, operation.spanAttributes);
  if (request.sessionId !== undefined) spanAttributes[ATTR.sessionId] = request.sessionId;
  const parent = contextFromMeta(telemetry, api.context.active(), metaOf(request.params));
  const span = tracer.startSpan(
    operation.spanName,
    { kind: api.SpanKind.SERVER, attributes: spanAttributes },
    parent,
  );
  const started = performance.now();
  const finish = (outcome: Outcome) => {
    const metric = mergeAttributes(attributes);
    if (outcome.errorType !== undefined) {
      metric[ATTR.errorType] = outcome.errorType;
      span.setAttribute(ATTR.errorType, outcome.errorType);
      span.setStatus({
        code: api.SpanStatusCode.ERROR,
        message: outcome.message,
      });
    }
    if (outcome.statusCode !== undefined) {
      metric[ATTR.statusCode] = outcome.statusCode;
      span.setAttribute(ATTR.statusCode, outcome.statusCode);
    }
    span.end();
    telemetry.serverDuration.record((performance.now() - started) / 1000, metric);
  };
  let result: T;
  try {
    result = await api.context.with(api.trace.setSpan(parent, span), handle);
  } catch (error) {
    finish(thrownOutcome(error));
    throw error;
  }
  finish(outcomeOf(request.method, { result }));
  return result;
}

/** A thrown JSON-RPC error (the SDK's ProtocolError carries a numeric code) is its code; else errorTypeOf. */
function thrownOutcome(error: unknown): Outcome {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message.slice(0, 1024) : undefined;
  if (typeof code === "number" && Number.isInteger(code)) {
    return { errorType: String(code), statusCode: String(code), message: message || undefined };
  }
  return { errorType: errorTypeOf(error), message: message || undefined };
}
