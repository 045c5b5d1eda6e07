import { packageInfo } from "../util/package-info.js";
import type {
  OpenTelemetryApi,
  OtelHistogram,
  OtelMeter,
  OtelMeterProvider,
  OtelTracer,
  OtelTracerProvider,
  OtelUpDownCounter,
} from "./otel-types.js";
import {
  CLIENT_DURATION_METRIC,
  DURATION_BUCKETS,
  GATEWAY_CALLS_IN_FLIGHT_METRIC,
  SERVER_DURATION_METRIC,
} from "./semconv.js";
import type { TelemetrySetting } from "./telemetry-options.js";

// The public declarations name only local structural types (see otel-types.ts): no optional peer.
export type { OpenTelemetryApi } from "./otel-types.js";

/**
 * What instrumented code holds while telemetry is on: the API module, a tracer and the histograms.
 * Off means no `Telemetry` at all, so the off path is one `undefined` check where a transport is
 * made or a request is served.
 */
export interface Telemetry {
  readonly api: OpenTelemetryApi;
  readonly tracer: OtelTracer;
  readonly clientDuration: OtelHistogram;
  readonly serverDuration: OtelHistogram;
  /** The gateway's tool calls in flight (see GATEWAY_CALLS_IN_FLIGHT_METRIC); only a gateway adds to it. */
  readonly callsInFlight: OtelUpDownCounter;
  /** The meter the instruments above come from, for a gauge of the caller's own (the cluster store's). */
  readonly meter: OtelMeter;
  /**
   * Whether anything records what a span or a duration sample would carry: a tracer provider (given,
   * or registered globally, now or later) or a meter provider that was there when this was made.
   * When nothing does, instrumented code skips building spans and attributes (a few microseconds per
   * request, a tenth of a warm stdio call's client CPU) and only passes an incoming trace context on.
   */
  readonly recording: () => boolean;
}

let apiLoad: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * `@opentelemetry/api`, imported once on first use; undefined when it is not installed (it is an
 * optional peer dependency: a host without it pays one failed import, once).
 */
export function loadOpenTelemetryApi(): Promise<OpenTelemetryApi | undefined> {
  apiLoad ??= import("@opentelemetry/api").then(
    // Also where the compiler checks that the real module conforms to the local types.
    (module): OpenTelemetryApi => module,
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
  const tracerProvider =
    (options.tracerProvider as OtelTracerProvider | undefined) ?? api.trace.getTracerProvider();
  const tracer = tracerProvider.getTracer(name, version);
  const meter = (
    (options.meterProvider as OtelMeterProvider | undefined) ?? api.metrics.getMeterProvider()
  ).getMeter(name, version);
  const histogram = (metric: string, description: string) =>
    meter.createHistogram(metric, {
      description,
      unit: "s",
      advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
    });
  const clientDuration = histogram(
    CLIENT_DURATION_METRIC,
    "The duration of an MCP request as observed on the sender, from the time it was sent until the response is received.",
  );
  const serverDuration = histogram(
    SERVER_DURATION_METRIC,
    "MCP request duration as observed on the receiver, from the time it was received until the result is sent.",
  );
  const callsInFlight = meter.createUpDownCounter(GATEWAY_CALLS_IN_FLIGHT_METRIC, {
    description: "Tool calls the gateway is answering now (received, result not yet sent).",
    unit: "{call}",
  });
  return {
    api,
    tracer,
    clientDuration,
    serverDuration,
    callsInFlight,
    meter,
    recording: recordingCheck(api, tracerProvider, clientDuration),
  };
}

/**
 * The global tracer provider is a proxy whose delegate an SDK may set at any time, so it is asked on
 * each request; the API has no proxy for meters, so a meter that was a no-op when made stays one.
 */
function recordingCheck(
  api: OpenTelemetryApi,
  tracerProvider: OtelTracerProvider,
  histogram: OtelHistogram,
): () => boolean {
  if (histogram !== api.createNoopMeter().createHistogram("probe")) return () => true;
  if (!(tracerProvider instanceof api.ProxyTracerProvider)) return () => true;
  const noop = new api.ProxyTracerProvider().getDelegate();
  return () => tracerProvider.getDelegate() !== noop;
}
