import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { createTelemetry } from "../../src/telemetry/create-telemetry.js";
import { type MetricsEndpoint, serveMetrics } from "../../src/telemetry/prometheus.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";

/** The metric the HorizontalPodAutoscaler scales on: what the gateway exports must be that name. */
const HPA_METRIC = (
  parse(readFileSync(join(process.cwd(), "deploy/k8s/hpa.yaml"), "utf8")) as {
    spec: { metrics: { type: string; pods?: { metric: { name: string } } }[] };
  }
).spec.metrics.find((metric) => metric.type === "Pods")?.pods?.metric.name;

describe("Prometheus metrics through the OpenTelemetry exporter", () => {
  let endpoint: MetricsEndpoint;
  let bridge: Bridge;
  beforeAll(async () => {
    endpoint = await serveMetrics({ host: "127.0.0.1", port: 0 });
    bridge = await startBridge({
      servers: { echo: inProcessEntry("echoes-meta") },
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

describe("the gateway's calls in flight, the autoscaling signal (deploy/k8s/hpa.yaml)", () => {
  it("is a Prometheus gauge that counts the tool calls being answered and falls back to 0", async () => {
    const endpoint = await serveMetrics({ host: "127.0.0.1", port: 0 });
    const setting = { meterProvider: endpoint.meterProvider };
    const upstream = await startBridge({
      servers: { slow: inProcessEntry("slow-tool") },
      telemetry: setting,
    });
    const gateway = await startGateway({
      bridge: upstream,
      host: "127.0.0.1",
      port: 0,
      telemetry: await createTelemetry(setting),
    });
    const client = await startBridge({ servers: { gw: { url: gateway.url } } });
    try {
      const gauge = async () => {
        const text = await (await fetch(endpoint.url)).text();
        const line = text
          .split("\n")
          .find((l) => l.startsWith(`${HPA_METRIC} `) || l.startsWith(`${HPA_METRIC}{`));
        return line === undefined ? undefined : Number(line.split(" ").at(-1));
      };
      const calls = [1, 2].map(() =>
        client.call("mcp_gw_mcp_slow_sleep", { ms: 60_000 }, { timeout: 60_000 }).catch(() => undefined),
      );
      let seen: number | undefined;
      await until(async () => {
        seen = await gauge();
        return seen === 2;
      }, 20_000).catch(() => {});
      expect(seen).toBe(2);
      // A listing is not a call: it does not move the gauge.
      await client.tools();
      await client.close();
      await Promise.all(calls);
      await until(async () => (await gauge()) === 0, 20_000).catch(() => {});
      expect(await gauge()).toBe(0);
    } finally {
      await client.close();
      await gateway.close();
      await upstream.close();
      await endpoint.close();
    }
  }, 60_000);
});
