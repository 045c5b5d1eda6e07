import { SpanKind } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { createTelemetry, type Telemetry } from "../../src/telemetry/create-telemetry.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { type HistogramPoint, otelHarness } from "./otel.js";

const otel = otelHarness();
afterAll(() => otel.close());

/**
 * The real gateway between a client bridge and an upstream stdio server: the client's CLIENT span, the
 * gateway's SERVER span (parented by the traceparent the client put in `params._meta`), the gateway
 * bridge's CLIENT span to upstream, and the traceparent the upstream server received are one trace.
 */
describe("client -> mcp-bridge gateway -> upstream stdio server", () => {
  const providers = { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider };
  let upstream: Bridge;
  let gateway: Gateway;
  let client: Bridge;
  beforeAll(async () => {
    const telemetry = (await createTelemetry(providers)) as Telemetry;
    upstream = await startBridge({ servers: { echo: inProcessEntry("echoes-meta") }, telemetry: providers });
    gateway = await startGateway({ bridge: upstream, host: "127.0.0.1", port: 0, telemetry });
    client = await startBridge({ servers: { gw: { url: gateway.url } }, telemetry: providers });
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await upstream?.close();
  });

  it("is one trace, and the gateway records mcp.server.operation.duration", async () => {
    otel.reset();
    const result = await otel.inSpan("agent turn", () => client.call("mcp_gw_mcp_echo_meta"));
    const spans = otel.spans();
    const turn = spans.find((span) => span.name === "agent turn");
    const downstream = spans.find(
      (span) => span.name === "tools/call mcp_echo_meta" && span.kind === SpanKind.CLIENT,
    );
    const served = spans.find(
      (span) => span.name === "tools/call mcp_echo_meta" && span.kind === SpanKind.SERVER,
    );
    const toUpstream = spans.find((span) => span.name === "tools/call meta" && span.kind === SpanKind.CLIENT);
    const traceId = turn?.spanContext().traceId;
    expect(traceId).toBeDefined();
    for (const span of [downstream, served, toUpstream]) expect(span?.spanContext().traceId).toBe(traceId);
    expect(served?.parentSpanContext?.spanId).toBe(downstream?.spanContext().spanId);
    expect(toUpstream?.parentSpanContext?.spanId).toBe(served?.spanContext().spanId);
    const seen = JSON.parse(result.text) as { traceparent?: string };
    expect(seen.traceparent).toBe(`00-${traceId}-${toUpstream?.spanContext().spanId}-01`);
    expect(served?.attributes).toMatchObject({
      "network.transport": "tcp",
      "gen_ai.tool.name": "mcp_echo_meta",
    });
    const durations = (await otel.histogram("mcp.server.operation.duration"))?.dataPoints as HistogramPoint[];
    expect(durations.some((point) => point.attributes["gen_ai.tool.name"] === "mcp_echo_meta")).toBe(true);
  });
});
