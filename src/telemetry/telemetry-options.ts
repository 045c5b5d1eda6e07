/**
 * The public telemetry options. They are structural on purpose: `@opentelemetry/api` is an optional
 * peer, so these types must not require it to be installed for a host to compile.
 */

/** An OpenTelemetry `TracerProvider` (e.g. the SDK's `BasicTracerProvider`). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/** An OpenTelemetry `MeterProvider` (e.g. the SDK's `MeterProvider`). */
export interface MeterProviderLike {
  getMeter(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

export interface TelemetryOptions {
  /** Where spans go; default: the global tracer provider of `@opentelemetry/api`. */
  readonly tracerProvider?: TracerProviderLike;
  /** Where the operation-duration histograms go; default: the global meter provider. */
  readonly meterProvider?: MeterProviderLike;
}

/**
 * `true` (default): spans and metrics go to the global OpenTelemetry providers when
 * `@opentelemetry/api` is installed, and nothing happens when it is not. `false`: no telemetry at
 * all. An object: these providers instead of the global ones.
 */
export type TelemetrySetting = boolean | TelemetryOptions;
