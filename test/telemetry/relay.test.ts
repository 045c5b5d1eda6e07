import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { McpServer } from "@modelcontextprotocol/server";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { createTelemetry, type Telemetry } from "../../src/telemetry/telemetry.js";
import { TracedTransport } from "../../src/telemetry/traced-transport.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { type HistogramPoint, otelHarness } from "./otel.js";

const otel = otelHarness();
afterAll(() => otel.close());

/**
 * A relay in the shape of the gateway: a stateless Streamable HTTP MCP server (its transport wrapped
 * in TracedTransport, as a server wraps its own) whose one tool calls a bridge fronting an upstream
 * stdio server. A client bridge calls the relay over real HTTP: client -> relay -> upstream is one
 * trace, each hop parented by the context the previous one put in `params._meta`.
 */
describe("client -> HTTP relay -> upstream stdio server", () => {
  const providers = { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider };
  let telemetry: Telemetry;
  let upstream: Bridge;
  let http: Server;
  let client: Bridge;
  beforeAll(async () => {
    telemetry = (await createTelemetry(providers)) as Telemetry;
    upstream = await startBridge({ servers: { echo: stdioEntry("echoes-meta") }, telemetry: providers });
    http = createServer((req, res) => {
      const server = new McpServer({ name: "relay", version: "1.0.0" });
      server.registerTool("relay_meta", { description: "Calls upstream meta" }, async () => {
        const result = await upstream.call("mcp_echo_meta");
        return { content: [{ type: "text", text: result.text }] };
      });
      const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      server
        .connect(
          new TracedTransport(transport, telemetry, {
            "network.transport": "tcp",
            "network.protocol.name": "http",
          }),
        )
        .then(() => transport.handleRequest(req, res))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
        });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    client = await startBridge({
      servers: { relay: { url: `http://127.0.0.1:${port}/mcp` } },
      telemetry: providers,
    });
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
    await upstream?.close();
  });

  it("forms one trace: client span -> relay SERVER span -> relay's upstream CLIENT span -> traceparent at the upstream server", async () => {
    otel.reset();
    const result = await otel.inSpan("agent turn", () => client.call("mcp_relay_relay_meta"));
    const spans = otel.spans();
    const turn = spans.find((span) => span.name === "agent turn");
    const downstream = spans.find(
      (span) => span.name === "tools/call relay_meta" && span.kind === SpanKind.CLIENT,
    );
    const served = spans.find(
      (span) => span.name === "tools/call relay_meta" && span.kind === SpanKind.SERVER,
    );
    const toUpstream = spans.find((span) => span.name === "tools/call meta" && span.kind === SpanKind.CLIENT);
    const traceId = turn?.spanContext().traceId;
    for (const span of [downstream, served, toUpstream]) expect(span?.spanContext().traceId).toBe(traceId);
    expect(downstream?.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId);
    expect(served?.parentSpanContext?.spanId).toBe(downstream?.spanContext().spanId);
    expect(toUpstream?.parentSpanContext?.spanId).toBe(served?.spanContext().spanId);
    const seen = JSON.parse(result.text) as { traceparent?: string };
    expect(seen.traceparent).toBe(`00-${traceId}-${toUpstream?.spanContext().spanId}-01`);
    expect(served?.attributes).toMatchObject({
      "network.transport": "tcp",
      "gen_ai.tool.name": "relay_meta",
    });
    const servedDurations = (await otel.histogram("mcp.server.operation.duration"))
      ?.dataPoints as HistogramPoint[];
    expect(servedDurations.some((point) => point.attributes["gen_ai.tool.name"] === "relay_meta")).toBe(true);
  });
});
