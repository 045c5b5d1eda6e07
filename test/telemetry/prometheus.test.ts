import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { type MetricsEndpoint, serveMetrics } from "../../src/telemetry/prometheus.js";
import { stdioEntry } from "../fixtures/servers/index.js";

describe("Prometheus metrics through the OpenTelemetry exporter", () => {
  let endpoint: MetricsEndpoint;
  let bridge: Bridge;
  beforeAll(async () => {
    endpoint = await serveMetrics({ host: "127.0.0.1", port: 0 });
    bridge = await startBridge({
      servers: { echo: stdioEntry("echoes-meta") },
      telemetry: { meterProvider: endpoint.meterProvider },
    });
  }, 30_000);
  afterAll(async () => {
    await bridge?.close();
    await endpoint?.close();
  });

  it("serves mcp.client.operation.duration as a Prometheus histogram on 127.0.0.1", async () => {
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await bridge.call("mcp_echo_meta");
    await bridge.call("mcp_echo_fails", {}, { onError: "result" });
    const response = await fetch(endpoint.url);
    expect(response.status).toBe(200);
    const text = await response.text();
    const bucket = text
      .split("\n")
      .find(
        (line) =>
          /^mcp_client_operation_duration\w*_bucket\{/.test(line) && line.includes('gen_ai_tool_name="meta"'),
      );
    expect(bucket).toMatch(/mcp_method_name="tools\/call"/);
    expect(text).toMatch(/le="0\.01"/);
    expect(text).toMatch(/le="300"/);
    expect(text).toMatch(/error_type="tool_error"/);
    expect((await fetch(new URL("/other", endpoint.url))).status).toBe(404);
  });
});
