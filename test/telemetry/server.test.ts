import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { createTelemetry, type Telemetry } from "../../src/telemetry/create-telemetry.js";
import { metaEntriesFor } from "../../src/telemetry/propagation.js";
import { traceServedRequest } from "../../src/telemetry/served-request.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { type HistogramPoint, otelHarness } from "./otel.js";

const otel = otelHarness();
afterAll(() => otel.close());
afterEach(() => otel.reset());

describe("server spans (traceServedRequest)", () => {
  let telemetry: Telemetry;
  let bridge: Bridge;
  beforeAll(async () => {
    const providers = { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider };
    telemetry = (await createTelemetry(providers)) as Telemetry;
    bridge = await startBridge({ servers: { echo: inProcessEntry("echoes-meta") }, telemetry: providers });
  }, 30_000);
  afterAll(() => bridge.close());

  it("parents the SERVER span on the traceparent in _meta, and the upstream call on the SERVER span", async () => {
    const { api } = telemetry;
    // What a remote client would send: its span's context in params._meta.
    const remote = otel.tracerProvider.getTracer("remote-client").startSpan("tools/call mcp_echo_meta");
    const meta = metaEntriesFor(telemetry, api.trace.setSpan(api.ROOT_CONTEXT, remote));
    remote.end();
    const result = await traceServedRequest(
      telemetry,
      { method: "tools/call", params: { name: "mcp_echo_meta", _meta: meta }, id: 4, sessionId: "s-1" },
      () => bridge.call("mcp_echo_meta"),
    );
    const served = otel
      .spans()
      .find((span) => span.name === "tools/call mcp_echo_meta" && span.kind === SpanKind.SERVER);
    const upstream = otel.spans().find((span) => span.name === "tools/call meta");
    expect(served?.spanContext().traceId).toBe(remote.spanContext().traceId);
    expect(served?.parentSpanContext?.spanId).toBe(remote.spanContext().spanId);
    expect(served?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "mcp_echo_meta",
      "jsonrpc.request.id": "4",
      "mcp.session.id": "s-1",
    });
    expect(upstream?.spanContext().traceId).toBe(remote.spanContext().traceId);
    expect(upstream?.parentSpanContext?.spanId).toBe(served?.spanContext().spanId);
    const seen = JSON.parse(result.text) as { traceparent?: string };
    expect(seen.traceparent).toContain(upstream?.spanContext().spanId);
  });

  it("without a traceparent the SERVER span starts a trace of its own; a thrown error is recorded", async () => {
    await expect(
      traceServedRequest(telemetry, { method: "prompts/get", params: { name: "nope" } }, async () => {
        throw Object.assign(new Error("Prompt not found"), { code: -32602 });
      }),
    ).rejects.toThrow("Prompt not found");
    const span = otel.spans().find((candidate) => candidate.name === "prompts/get nope");
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.attributes).toMatchObject({ "error.type": "-32602", "rpc.response.status_code": "-32602" });
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: "Prompt not found" });
    const histogram = await otel.histogram("mcp.server.operation.duration");
    const point = (histogram?.dataPoints as HistogramPoint[] | undefined)?.find(
      (candidate) => candidate.attributes["mcp.method.name"] === "prompts/get",
    );
    expect(point?.attributes["error.type"]).toBe("-32602");
    expect(histogram?.descriptor.unit).toBe("s");
  });

  it("is the handler itself when telemetry is off", async () => {
    expect(await traceServedRequest(undefined, { method: "tools/call" }, async () => 42)).toBe(42);
    expect(otel.spans()).toEqual([]);
  });
});
