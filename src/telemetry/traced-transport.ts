import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/client";
import { ForwardingTransport } from "../util/forwarding-transport.js";
import { IdTable } from "../util/id-table.js";
import type { Telemetry } from "./create-telemetry.js";
import type { OtelContext as Context, OtelSpan as Span } from "./otel-types.js";
import { contextFromMeta, metaEntriesFor } from "./propagation.js";
import {
  ATTR,
  type Attributes,
  CANCELLED,
  errorTypeOf,
  mergeAttributes,
  metaOf,
  type Operation,
  type Outcome,
  operationOf,
  outcomeOf,
  protocolVersionIn,
  TRANSPORT_CLOSED,
  withMeta,
} from "./semconv.js";

type RequestId = string | number;

/** A request on the wire whose answer has not come yet, with its span. */
interface InFlight {
  readonly operation: Operation;
  /** The low-cardinality attributes, shared by the span and the duration metric. */
  readonly attributes: Attributes;
  readonly span: Span;
  readonly started: number;
}

type Message = Record<string, unknown>;

function isRequest(message: Message): message is Message & { method: string; id: RequestId } {
  return (
    typeof message.method === "string" && (typeof message.id === "string" || typeof message.id === "number")
  );
}

function isNotification(message: Message): message is Message & { method: string } {
  return typeof message.method === "string" && message.id === undefined;
}

function isResponse(message: Message): message is Message & { id: RequestId } {
  return (
    message.method === undefined &&
    (typeof message.id === "string" || typeof message.id === "number") &&
    ("result" in message || "error" in message)
  );
}

function cancelledId(message: Message): RequestId | undefined {
  if (message.method !== "notifications/cancelled") return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * A transport that records every MCP request as the OpenTelemetry conventions for MCP describe it,
 * whichever side of the session it is on: a CLIENT span `{mcp.method.name} {target}` and an
 * `mcp.client.operation.duration` sample for each request sent (from the send until its response),
 * with the trace context written into the request's `params._meta`; a SERVER span and an
 * `mcp.server.operation.duration` sample for each request received (until its response is sent),
 * parented by the context in its `_meta`, its handler running with that span active. The bridge
 * wraps its client transports (a server's sampling, elicitation and roots requests are the received
 * ones there); a server wraps its own the same way.
 *
 * It wraps the transport rather than the SDK's client or server so that every request is covered,
 * whichever method sent it (including the handshake), and only messages are read: nothing of the SDK
 * is patched.
 */
export class TracedTransport extends ForwardingTransport {
  readonly #telemetry: Telemetry;
  readonly #peer: Attributes;
  /** Masks secrets in text the peer sent (an error's message) before it becomes a span status. */
  readonly #redact: (text: string) => string;
  // One insertion and deletion per request: IdTables, not Maps (see util/id-table.ts).
  readonly #sent: Map<RequestId, InFlight> = new IdTable();
  readonly #received: Map<RequestId, InFlight> = new IdTable();
  #protocolVersion: string | undefined;

  constructor(
    inner: Transport,
    telemetry: Telemetry,
    peer: Attributes,
    redact: (text: string) => string = (text) => text,
  ) {
    super(inner);
    this.#redact = redact;
    this.#telemetry = telemetry;
    this.#peer = peer;
  }

  protected override received(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    this.#onMessage(message as unknown as Message, extra);
  }

  protected override closed(): void {
    this.#endAll(TRANSPORT_CLOSED);
    super.closed();
  }

  override setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    super.setProtocolVersion(version);
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const fields = message as unknown as Message;
    let outgoing = message;
    let request: RequestId | undefined;
    if (isRequest(fields)) {
      request = fields.id;
      const traced = this.#telemetry.recording() ? this.#begin(fields) : this.#passOn(fields);
      outgoing = traced as unknown as JSONRPCMessage;
    } else if (isResponse(fields)) {
      const method = this.#received.get(fields.id)?.operation.method;
      if (method !== undefined) {
        if (method === "initialize") this.#learnVersion(fields);
        this.#end(this.#received, fields.id, outcomeOf(method, fields));
      }
    } else {
      const cancelled = cancelledId(fields);
      if (cancelled !== undefined) this.#end(this.#sent, cancelled, { errorType: CANCELLED });
    }
    try {
      await this.inner.send(outgoing, options);
    } catch (error) {
      if (request !== undefined) this.#end(this.#sent, request, { errorType: errorTypeOf(error) });
      throw error;
    }
  }

  /** Starts the CLIENT span of an outgoing request; returns the request with the context in its `_meta`. */
  #begin(message: Message & { method: string; id: RequestId }): Message {
    const { api, tracer } = this.#telemetry;
    const operation = operationOf(message.method, message.params, message.id);
    const parent = api.context.active();
    const attributes = this.#attributes(operation, message.params);
    const span = tracer.startSpan(
      operation.spanName,
      { kind: api.SpanKind.CLIENT, attributes: mergeAttributes(attributes, this.#spanOnly(operation)) },
      parent,
    );
    const context = api.trace.setSpan(parent, span);
    // A reused id replaces its predecessor, which can no longer be told apart: end it unanswered.
    this.#end(this.#sent, message.id, { errorType: CANCELLED });
    this.#sent.set(message.id, { operation, attributes, span, started: performance.now() });
    return this.#carrying(message, context);
  }

  /** Nothing records, so no span: the request carries on only the trace context it was sent under. */
  #passOn(message: Message & { method: string; id: RequestId }): Message {
    return this.#carrying(message, this.#telemetry.api.context.active());
  }

  /** The request with `context` in its `params._meta`; the request itself when there is none to carry. */
  #carrying(message: Message, context: Context): Message {
    const entries = metaEntriesFor(this.#telemetry, context);
    if (Object.keys(entries).length === 0) return message;
    return { ...message, params: withMeta(message.params, entries) };
  }

  #onMessage(message: Message, extra: MessageExtraInfo | undefined): void {
    if (isResponse(message)) {
      const method = this.#sent.get(message.id)?.operation.method;
      if (method !== undefined) {
        if (method === "initialize") this.#learnVersion(message);
        this.#end(this.#sent, message.id, outcomeOf(method, message));
      }
      this.onmessage?.(message as unknown as JSONRPCMessage, extra);
      return;
    }
    const deliver = () => this.onmessage?.(message as unknown as JSONRPCMessage, extra);
    if (isRequest(message)) {
      // The server's request runs under its own SERVER span, parented by the context it sent.
      const { api, tracer } = this.#telemetry;
      const operation = operationOf(message.method, message.params, message.id);
      const parent = contextFromMeta(this.#telemetry, api.context.active(), metaOf(message.params));
      const attributes = this.#attributes(operation, message.params);
      const span = tracer.startSpan(
        operation.spanName,
        { kind: api.SpanKind.SERVER, attributes: mergeAttributes(attributes, this.#spanOnly(operation)) },
        parent,
      );
      const context = api.trace.setSpan(parent, span);
      this.#end(this.#received, message.id, { errorType: CANCELLED });
      this.#received.set(message.id, { operation, attributes, span, started: performance.now() });
      api.context.with(context, deliver);
      return;
    }
    if (isNotification(message)) {
      const cancelled = cancelledId(message);
      if (cancelled !== undefined) this.#end(this.#received, cancelled, { errorType: CANCELLED });
    }
    deliver();
  }

  #learnVersion(message: Message): void {
    const version = (message.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version === "string" && this.#protocolVersion === undefined) this.#protocolVersion = version;
  }

  #attributes(operation: Operation, params: unknown): Attributes {
    const attributes = mergeAttributes(this.#peer, operation.attributes);
    // A request of the stateless protocol era names its version itself, in its _meta envelope.
    const version = protocolVersionIn(params) ?? this.#protocolVersion;
    if (version !== undefined) attributes[ATTR.protocolVersion] = version;
    return attributes;
  }

  /** Span attributes of unbounded cardinality, kept out of the metric. */
  #spanOnly(operation: Operation): Attributes {
    const session = this.inner.sessionId;
    if (session === undefined) return operation.spanAttributes;
    const attributes = mergeAttributes(operation.spanAttributes);
    attributes[ATTR.sessionId] = session;
    return attributes;
  }

  #end(table: Map<RequestId, InFlight>, id: RequestId, outcome: Outcome): void {
    const entry = table.get(id);
    if (!entry) return;
    table.delete(id);
    const kind = table === this.#sent ? "client" : "server";
    const message = outcome.message === undefined ? undefined : this.#redact(outcome.message);
    finish(this.#telemetry, entry, { ...outcome, message }, kind, this.#protocolVersion);
  }

  #endAll(errorType: string): void {
    for (const id of [...this.#sent.keys()]) this.#end(this.#sent, id, { errorType });
    for (const id of [...this.#received.keys()]) this.#end(this.#received, id, { errorType });
  }
}

/** Ends a span with its outcome and records the operation's duration, the metric's attributes only. */
function finish(
  telemetry: Telemetry,
  entry: InFlight,
  outcome: Outcome,
  kind: "client" | "server",
  protocolVersion: string | undefined,
): void {
  const { api } = telemetry;
  const seconds = (performance.now() - entry.started) / 1000;
  const metric = mergeAttributes(entry.attributes);
  if (protocolVersion !== undefined && metric[ATTR.protocolVersion] === undefined) {
    metric[ATTR.protocolVersion] = protocolVersion;
    entry.span.setAttribute(ATTR.protocolVersion, protocolVersion);
  }
  if (outcome.errorType !== undefined) {
    metric[ATTR.errorType] = outcome.errorType;
    entry.span.setAttribute(ATTR.errorType, outcome.errorType);
    entry.span.setStatus({
      code: api.SpanStatusCode.ERROR,
      message: outcome.message,
    });
  }
  if (outcome.statusCode !== undefined) {
    metric[ATTR.statusCode] = outcome.statusCode;
    entry.span.setAttribute(ATTR.statusCode, outcome.statusCode);
  }
  entry.span.end();
  (kind === "client" ? telemetry.clientDuration : telemetry.serverDuration).record(seconds, metric);
}

/** `transport`, traced when telemetry is on; the same object otherwise. */
export function traceTransport(
  transport: Transport,
  telemetry: Telemetry | undefined,
  peer: Attributes,
  redact?: (text: string) => string,
): Transport {
  return telemetry === undefined ? transport : new TracedTransport(transport, telemetry, peer, redact);
}
