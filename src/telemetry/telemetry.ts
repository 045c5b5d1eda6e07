import type * as Api from "@opentelemetry/api";
import { packageInfo } from "../util/package-info.js";
import { CLIENT_DURATION_METRIC, DURATION_BUCKETS, SERVER_DURATION_METRIC } from "./semconv.js";
import type { TelemetrySetting } from "./types.js";

export type OpenTelemetryApi = typeof Api;

/**
 * What instrumented code holds while telemetry is on: the API module, a tracer and the histograms.
 * Off means no `Telemetry` at all, so the off path is one `undefined` check where a transport is
 * made or a request is served.
 */
export interface Telemetry {
  readonly api: OpenTelemetryApi;
  readonly tracer: Api.Tracer;
  readonly clientDuration: Api.Histogram;
  readonly serverDuration: Api.Histogram;
}

let apiLoad: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * `@opentelemetry/api`, imported once on first use; undefined when it is not installed (it is an
 * optional peer dependency: a host without it pays one failed import, once).
 */
export function loadOpenTelemetryApi(): Promise<OpenTelemetryApi | undefined> {
  apiLoad ??= import("@opentelemetry/api").then(
    (module) => module,
    () => undefined,
  );
  return apiLoad;
}

/** The telemetry a setting asks for, or undefined when it is off or the API is not installed. */
export async function createTelemetry(
  setting: TelemetrySetting,
  load: () => Promise<OpenTelemetryApi | undefined> = loadOpenTelemetryApi,
): Promise<Telemetry | undefined> {
  if (setting === false) return undefined;
  const api = await load();
  if (!api) return undefined;
  const options = setting === true ? {} : setting;
  const { name, version } = packageInfo();
  const tracer = (
    (options.tracerProvider as Api.TracerProvider | undefined) ?? api.trace.getTracerProvider()
  ).getTracer(name, version);
  const meter = (
    (options.meterProvider as Api.MeterProvider | undefined) ?? api.metrics.getMeterProvider()
  ).getMeter(name, version);
  const histogram = (metric: string, description: string) =>
    meter.createHistogram(metric, {
      description,
      unit: "s",
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
  return {
    api,
    tracer,
    clientDuration: histogram(
      CLIENT_DURATION_METRIC,
      "The duration of an MCP request as observed on the sender, from the time it was sent until the response is received.",
    ),
    serverDuration: histogram(
      SERVER_DURATION_METRIC,
      "MCP request duration as observed on the receiver, from the time it was received until the result is sent.",
    ),
  };
}
