import { InMemoryTransport, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { context, metrics, ROOT_CONTEXT, SpanKind, TraceFlags, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { createTelemetry, type Telemetry } from "../../src/telemetry/create-telemetry.js";
import { TracedTransport } from "../../src/telemetry/traced-transport.js";
import { otelHarness } from "./otel.js";

const otel = otelHarness();
afterAll(() => {
  trace.disable();
  metrics.disable();
  otel.close();
});

const REMOTE = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
};

/** What one request sent through a traced transport looks like on the wire, sent under `REMOTE`. */
async function sendOne(telemetry: Telemetry, id: number): Promise<Record<string, unknown>> {
  const [near, far] = InMemoryTransport.createLinkedPair();
  const received = new Promise<JSONRPCMessage>((resolve) => {
    far.onmessage = resolve;
  });
  await far.start();
  const traced = new TracedTransport(near, telemetry, {});
  await traced.start();
  const request = { jsonrpc: "2.0", id, method: "tools/call", params: { name: "t", arguments: {} } } as const;
  await context.with(trace.setSpanContext(ROOT_CONTEXT, REMOTE), () => traced.send(request));
  const message = (await received) as { params?: { _meta?: Record<string, unknown> } };
  await traced.close();
  return message.params?._meta ?? {};
}

/**
 * With the OpenTelemetry API installed but no SDK, nothing would record a span, so none is built (that
 * work is a tenth of a warm call's client CPU); the trace context a request runs under still reaches the
 * server. A tracer provider an SDK registers later is used from the next request on.
 */
describe("telemetry with nothing recording", () => {
  it("passes the caller's trace context on without a span, and traces once a provider is registered", async () => {
    const telemetry = (await createTelemetry(true)) as Telemetry;
    expect(telemetry.recording()).toBe(false);
    const passed = await sendOne(telemetry, 1);
    expect(passed.traceparent).toBe(`00-${REMOTE.traceId}-${REMOTE.spanId}-01`);
    expect(otel.spans()).toHaveLength(0);

    trace.setGlobalTracerProvider(otel.tracerProvider);
    expect(telemetry.recording()).toBe(true);
    const traced = await sendOne(telemetry, 2);
    const span = otel.spans().find((s) => s.kind === SpanKind.CLIENT);
    expect(span?.parentSpanContext?.spanId).toBe(REMOTE.spanId);
    expect(traced.traceparent).toBe(`00-${REMOTE.traceId}-${span?.spanContext().spanId}-01`);
  });

  it("records when only a meter provider is registered", async () => {
    trace.disable();
    metrics.setGlobalMeterProvider(otel.meterProvider);
    const telemetry = (await createTelemetry(true)) as Telemetry;
    expect(telemetry.recording()).toBe(true);
  });
});
