/**
 * The part of `@opentelemetry/api` mcp-bridge uses, as local structural types. `Telemetry` is in the
 * public declarations (a gateway option), and `@opentelemetry/api` is an optional peer: a declaration
 * importing it fails a consumer's `tsc` (with `skipLibCheck: false`) that does not have it installed.
 * The real module conforms to `OpenTelemetryApi` (checked where it is loaded, in create-telemetry.ts),
 * so these types only name what is called here. Methods use method syntax on purpose: the API's own
 * signatures are wider (generic carriers, setters, more options) and stay assignable.
 */

/** An attribute value as the API accepts it. */
export type OtelAttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;

export interface OtelAttributes {
  [key: string]: OtelAttributeValue | undefined;
}

/** An immutable context: the active span and anything else carried across async work. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

export interface OtelTraceState {
  serialize(): string;
}

export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  isRemote?: boolean;
  traceFlags: number;
  traceState?: OtelTraceState;
}

export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: OtelAttributeValue): this;
  setStatus(status: { code: number; message?: string }): this;
  addEvent(name: string, attributes?: OtelAttributes): this;
  end(): void;
}

export interface OtelTracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: OtelAttributes },
    context?: OtelContext,
  ): OtelSpan;
}

export interface OtelTracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
}

export interface OtelProxyTracerProvider extends OtelTracerProvider {
  getDelegate(): OtelTracerProvider;
}

export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

export interface OtelUpDownCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

export interface OtelObservableGauge {
  addCallback(
    callback: (result: { observe(value: number, attributes?: OtelAttributes): void }) => void,
  ): void;
}

export interface OtelMetricOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

export interface OtelMeter {
  createHistogram(name: string, options?: OtelMetricOptions): OtelHistogram;
  createUpDownCounter(name: string, options?: OtelMetricOptions): OtelUpDownCounter;
  createObservableGauge(name: string, options?: OtelMetricOptions): OtelObservableGauge;
}

export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
}

/** What a context manager does; the gateway CLI registers one (see context-manager.ts). */
export interface OtelContextManager {
  active(): OtelContext;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: OtelContext,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F>;
  bind<T>(context: OtelContext, target: T): T;
  enable(): this;
  disable(): this;
}

/** The `@opentelemetry/api` module, as far as mcp-bridge uses it. */
export interface OpenTelemetryApi {
  readonly context: {
    active(): OtelContext;
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: OtelContext,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F>;
    setGlobalContextManager(contextManager: OtelContextManager): boolean;
  };
  readonly propagation: {
    inject(context: OtelContext, carrier: Record<string, string>): void;
    extract(context: OtelContext, carrier: Record<string, string>): OtelContext;
  };
  readonly trace: {
    getActiveSpan(): OtelSpan | undefined;
    getSpanContext(context: OtelContext): OtelSpanContext | undefined;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
    getTracerProvider(): OtelTracerProvider;
  };
  readonly metrics: {
    getMeterProvider(): OtelMeterProvider;
  };
  readonly ROOT_CONTEXT: OtelContext;
  readonly SpanKind: { readonly CLIENT: number; readonly SERVER: number };
  readonly SpanStatusCode: { readonly ERROR: number };
  readonly ProxyTracerProvider: new () => OtelProxyTracerProvider;
  createContextKey(description: string): symbol;
  createTraceState(rawTraceState?: string): OtelTraceState;
  isSpanContextValid(spanContext: OtelSpanContext): boolean;
  createNoopMeter(): OtelMeter;
}
