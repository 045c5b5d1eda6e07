import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { SpanKind, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { createTelemetry, type Telemetry } from "../../src/telemetry/create-telemetry.js";
import { TracedTransport } from "../../src/telemetry/traced-transport.js";
import { type HistogramPoint, otelHarness } from "./otel.js";

const otel = otelHarness();
afterAll(() => otel.close());

/**
 * Both ends of one MCP session traced (an SDK client and an SDK server over the SDK's in-memory
 * transport, each transport wrapped): the client's span is the parent of the server's, in one trace,
 * and the server's handler runs with its SERVER span active.
 */
describe("TracedTransport on both sides of a session", () => {
  it("makes client and server spans of one request one trace, and measures both durations", async () => {
    const telemetry = (await createTelemetry({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    })) as Telemetry;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new McpServer({ name: "traced", version: "1.0.0" });
    server.registerTool("work", { inputSchema: z.object({ n: z.number() }) }, async ({ n }) => ({
      content: [{ type: "text", text: `${n}:${trace.getActiveSpan()?.spanContext().spanId ?? "none"}` }],
    }));
    const peer = { "network.transport": "tcp" };
    await server.connect(new TracedTransport(serverSide, telemetry, peer));
    const client = new Client({ name: "traced-client", version: "1.0.0" });
    await client.connect(new TracedTransport(clientSide, telemetry, peer));
    try {
      const result = await client.callTool({ name: "work", arguments: { n: 7 } });
      const text = (result.content as { text: string }[])[0]?.text ?? "";
      const calls = otel.spans().filter((span) => span.name === "tools/call work");
      const clientSpan = calls.find((span) => span.kind === SpanKind.CLIENT);
      const serverSpan = calls.find((span) => span.kind === SpanKind.SERVER);
      expect(serverSpan?.spanContext().traceId).toBe(clientSpan?.spanContext().traceId);
      expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
      expect(text).toBe(`7:${serverSpan?.spanContext().spanId}`);
      // The server learnt the version from the initialize response it sent.
      expect(serverSpan?.attributes["mcp.protocol.version"]).toBe(
        clientSpan?.attributes["mcp.protocol.version"],
      );
      expect(serverSpan?.attributes["mcp.protocol.version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const served = (await otel.histogram("mcp.server.operation.duration"))?.dataPoints as HistogramPoint[];
      expect(served.find((point) => point.attributes["gen_ai.tool.name"] === "work")?.value.count).toBe(1);
      const sent = (await otel.histogram("mcp.client.operation.duration"))?.dataPoints as HistogramPoint[];
      expect(sent.find((point) => point.attributes["gen_ai.tool.name"] === "work")?.value.count).toBe(1);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("ends a request still unanswered when the transport closes, with error.type transport_closed", async () => {
    const telemetry = (await createTelemetry({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    })) as Telemetry;
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new McpServer({ name: "stalls", version: "1.0.0" });
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    server.registerTool("stall", {}, async () => {
      entered();
      return new Promise(() => {});
    });
    await server.connect(serverSide);
    const client = new Client({ name: "c", version: "1.0.0" });
    await client.connect(new TracedTransport(clientSide, telemetry, {}));
    const call = client.callTool({ name: "stall" }).catch((error: unknown) => error);
    await inHandler;
    await server.close();
    await call;
    const span = otel.spans().find((candidate) => candidate.name === "tools/call stall");
    expect(span?.attributes["error.type"]).toBe("transport_closed");
    await client.close();
  });
});
