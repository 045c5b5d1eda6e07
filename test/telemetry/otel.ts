import { context, type Span, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  type HistogramMetricData,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A metric reader the test pulls from (no timer): `collect()` returns what was recorded so far. */
class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * The real OpenTelemetry SDK with in-memory exporters: spans as they end, and the histograms on demand.
 * Installs an AsyncLocalStorage context manager (what a host's SDK setup does) so that an active
 * span in the test is the parent of the spans made below it.
 */
export function otelHarness() {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    /** Runs `work` inside a new active span of the test's own tracer. */
    inSpan: <T>(name: string, work: (span: Span) => Promise<T>): Promise<T> =>
      tracerProvider.getTracer("test").startActiveSpan(name, async (span) => {
        try {
          return await work(span);
        } finally {
          span.end();
        }
      }),
    async histogram(name: string): Promise<HistogramMetricData | undefined> {
      const { resourceMetrics } = await reader.collect();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name === name) return metric as HistogramMetricData;
        }
      }
      return undefined;
    },
    async close(): Promise<void> {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      context.disable();
      trace.disable();
    },
  };
}

export type HistogramPoint = DataPoint<Histogram>;
