import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { DURATION_BUCKETS } from "../../src/telemetry/semconv.js";
import { type HttpFixture, startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { type HistogramPoint, otelHarness } from "./otel.js";

const otel = otelHarness();
afterAll(() => otel.close());
afterEach(() => otel.reset());

function spanNamed(name: string) {
  const span = otel.spans().find((candidate) => candidate.name === name);
  if (!span)
    throw new Error(
      `no span "${name}" among ${otel
        .spans()
        .map((s) => s.name)
        .join(", ")}`,
    );
  return span;
}

/** What the fixture's `meta` tool saw in `params._meta`. */
function metaSeen(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

describe("client telemetry over stdio (real OpenTelemetry SDK, in-memory exporters)", () => {
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await startBridge({
      servers: { echo: stdioEntry("echoes-meta") },
      telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
    });
  }, 30_000);
  afterAll(() => bridge.close());

  it("a tool call is a CLIENT span `tools/call meta` under the caller's span, and the server gets its traceparent in _meta", async () => {
    const result = await otel.inSpan("agent turn", () => bridge.call("mcp_echo_meta"));
    const outer = spanNamed("agent turn");
    const call = spanNamed("tools/call meta");
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(call.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(call.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "meta",
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
    });
    expect(typeof call.attributes["jsonrpc.request.id"]).toBe("string");
    expect(call.attributes["mcp.protocol.version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(call.attributes["error.type"]).toBeUndefined();
    expect(call.status.code).not.toBe(SpanStatusCode.ERROR);
    const { traceId, spanId } = call.spanContext();
    expect(metaSeen(result.text).traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it("a result with isError is error.type tool_error and an ERROR status", async () => {
    await bridge.call("mcp_echo_fails", { reason: "no" }, { onError: "result" });
    const call = spanNamed("tools/call fails");
    expect(call.attributes["error.type"]).toBe("tool_error");
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("prompts/get and resources/read are spans too, with their own target attributes and context", async () => {
    const prompt = await bridge.getPrompt("echo/summary");
    const promptSpan = spanNamed("prompts/get summary");
    expect(promptSpan.attributes).toMatchObject({
      "mcp.method.name": "prompts/get",
      "gen_ai.prompt.name": "summary",
    });
    expect(JSON.stringify(prompt)).toContain(promptSpan.spanContext().spanId);

    const resource = await bridge.readResource("memo://note", { server: "echo" });
    // The URI is a span attribute, never part of the name (unbounded cardinality).
    const readSpan = spanNamed("resources/read");
    expect(readSpan.attributes).toMatchObject({
      "mcp.method.name": "resources/read",
      "mcp.resource.uri": "memo://note",
    });
    expect(resource.text).toContain(readSpan.spanContext().spanId);
  });

  it("a JSON-RPC error response sets error.type and rpc.response.status_code to its code", async () => {
    await expect(bridge.readResource("memo://missing", { server: "echo" })).rejects.toThrow();
    const readSpan = spanNamed("resources/read");
    expect(readSpan.attributes["error.type"]).toMatch(/^-?\d+$/);
    expect(readSpan.attributes["rpc.response.status_code"]).toBe(readSpan.attributes["error.type"]);
    expect(readSpan.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("records mcp.client.operation.duration in seconds with the conventions' buckets and low-cardinality attributes", async () => {
    await bridge.call("mcp_echo_meta");
    await bridge.call("mcp_echo_fails", {}, { onError: "result" });
    const histogram = await otel.histogram("mcp.client.operation.duration");
    expect(histogram?.descriptor.unit).toBe("s");
    const points = (histogram?.dataPoints ?? []) as HistogramPoint[];
    const meta = points.find((p) => p.attributes["gen_ai.tool.name"] === "meta");
    expect(meta?.value.count).toBeGreaterThanOrEqual(2);
    expect(meta?.value.buckets.boundaries).toEqual(DURATION_BUCKETS);
    expect(meta?.attributes).toMatchObject({ "mcp.method.name": "tools/call", "network.transport": "pipe" });
    expect(meta?.attributes["error.type"]).toBeUndefined();
    const failed = points.find((p) => p.attributes["gen_ai.tool.name"] === "fails");
    expect(failed?.attributes["error.type"]).toBe("tool_error");
    for (const point of points) {
      expect(point.attributes["jsonrpc.request.id"]).toBeUndefined();
      expect(point.attributes["mcp.resource.uri"]).toBeUndefined();
    }
    // The handshake and the first tool listing were measured too.
    const methods = new Set(points.map((p) => p.attributes["mcp.method.name"]));
    expect(methods).toContain("initialize");
    expect(methods).toContain("tools/list");
  });
});

describe("client telemetry over Streamable HTTP", () => {
  let fixture: HttpFixture;
  let bridge: Bridge;
  beforeAll(async () => {
    fixture = await startHttpFixture("echoes-meta");
    bridge = await startBridge({
      servers: { web: { url: fixture.url } },
      telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
    });
  }, 30_000);
  afterAll(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  it("records the server's address, port and session, and propagates the trace context", async () => {
    const result = await bridge.call("mcp_web_meta");
    const call = spanNamed("tools/call meta");
    const url = new URL(fixture.url);
    expect(call.attributes).toMatchObject({
      "network.transport": "tcp",
      "network.protocol.name": "http",
      "server.address": "127.0.0.1",
      "server.port": Number(url.port),
    });
    expect(typeof call.attributes["mcp.session.id"]).toBe("string");
    expect(metaSeen(result.text).traceparent).toBe(
      `00-${call.spanContext().traceId}-${call.spanContext().spanId}-01`,
    );
  });
});

describe("telemetry: false", () => {
  it("records nothing and sends no trace context, even inside an active span", async () => {
    const bridge = await startBridge({
      servers: { echo: stdioEntry("echoes-meta") },
      telemetry: false,
    });
    try {
      const before = (await otel.histogram("mcp.client.operation.duration"))?.dataPoints.length ?? 0;
      const result = await otel.inSpan("outer", () => bridge.call("mcp_echo_meta"));
      expect(otel.spans().map((span) => span.name)).toEqual(["outer"]);
      expect(metaSeen(result.text).traceparent).toBeUndefined();
      const after = (await otel.histogram("mcp.client.operation.duration"))?.dataPoints.length ?? 0;
      expect(after).toBe(before);
    } finally {
      await bridge.close();
    }
  }, 30_000);
});

describe("requests the server sends to the bridge", () => {
  it("a sampling/createMessage runs the host handler under a SERVER span", async () => {
    let activeInHandler: string | undefined;
    const { trace } = await import("@opentelemetry/api");
    const bridge = await startBridge({
      servers: { sampler: stdioEntry("sampler", { sampling: true }) },
      telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
      onSampling: () => {
        activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
        return { role: "assistant", model: "fixture", content: { type: "text", text: "sampled" } };
      },
    });
    try {
      const result = await bridge.call("mcp_sampler_ask", { prompt: "hi" });
      expect(result.text).toContain("sampled");
      const sampling = spanNamed("sampling/createMessage");
      expect(sampling.kind).toBe(SpanKind.SERVER);
      expect(sampling.attributes["mcp.method.name"]).toBe("sampling/createMessage");
      expect(activeInHandler).toBe(sampling.spanContext().spanId);
      expect(sampling.status.code).not.toBe(SpanStatusCode.ERROR);
    } finally {
      await bridge.close();
    }
  }, 30_000);
});
