import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { metricsListenFailed, metricsPackagesMissing } from "../errors/index.js";
import { errorText } from "../util/text-of.js";
import type { MeterProviderLike } from "./types.js";

/** A Prometheus scrape endpoint and the meter provider whose metrics it serves. */
export interface MetricsEndpoint {
  /** Where Prometheus scrapes, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  /** Give this to the bridge (`telemetry: { meterProvider }`) so its histograms are served here. */
  readonly meterProvider: MeterProviderLike;
  close(): Promise<void>;
}

const PACKAGES = "@opentelemetry/api @opentelemetry/sdk-metrics @opentelemetry/exporter-prometheus";

/**
 * Serves the metrics of a new meter provider in the Prometheus text format on `GET /metrics`, through
 * the OpenTelemetry Prometheus exporter. We own the HTTP server (the exporter's own cannot bind port
 * 0 and report the port), so the address is the caller's: 127.0.0.1 unless told otherwise. The
 * OpenTelemetry packages are optional peers, loaded only here.
 */
export async function serveMetrics(listen: {
  readonly host: string;
  readonly port: number;
}): Promise<MetricsEndpoint> {
  let modules: [
    typeof import("@opentelemetry/exporter-prometheus"),
    typeof import("@opentelemetry/sdk-metrics"),
  ];
  try {
    modules = await Promise.all([
      import("@opentelemetry/exporter-prometheus"),
      import("@opentelemetry/sdk-metrics"),
    ]);
  } catch (error) {
    throw metricsPackagesMissing({ packages: PACKAGES, detail: errorText(error), cause: error });
  }
  const [{ PrometheusExporter }, { MeterProvider }] = modules;
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (request.method === "GET" && path === "/metrics") {
      exporter.getMetricsRequestHandler(request, response);
      return;
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        metricsListenFailed({ host: listen.host, port: listen.port, detail: errorText(error), cause: error }),
      ),
    );
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    meterProvider,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await meterProvider.shutdown().catch(() => {});
    },
  };
}
