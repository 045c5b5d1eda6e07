import { ensureContextManager } from "../../../telemetry/context-manager.js";
import { createTelemetry, type Telemetry } from "../../../telemetry/create-telemetry.js";
import { serveMetrics } from "../../../telemetry/prometheus.js";
import type { TelemetrySetting } from "../../../telemetry/telemetry-options.js";

export interface GatewayTelemetry {
  /** For the gateway's own SERVER spans; undefined when `@opentelemetry/api` is not installed. */
  readonly telemetry: Telemetry | undefined;
  /** For the bridge behind the gateway, so its CLIENT spans join the same traces and meter. */
  readonly setting: TelemetrySetting;
  /** The Prometheus endpoint, when one was asked for. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * The gateway's telemetry: the process's global OpenTelemetry providers, or with `metrics` a
 * Prometheus endpoint of our own (127.0.0.1 unless a host is given) that both the gateway and its
 * bridge record to. A context manager is registered if none is, so spans parent across awaits.
 */
export async function gatewayTelemetry(metrics?: { host: string; port: number }): Promise<GatewayTelemetry> {
  const endpoint = metrics ? await serveMetrics(metrics) : undefined;
  const setting: TelemetrySetting = endpoint ? { meterProvider: endpoint.meterProvider } : true;
  const telemetry = await createTelemetry(setting);
  if (telemetry) ensureContextManager(telemetry.api);
  return {
    telemetry,
    setting,
    metricsUrl: endpoint?.url,
    close: async () => {
      await endpoint?.close();
    },
  };
}
