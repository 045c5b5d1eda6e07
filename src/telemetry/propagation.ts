import type { Telemetry } from "./create-telemetry.js";
import type { OtelContext as Context } from "./otel-types.js";
import { formatTraceparent, parseTraceparent, TRACEPARENT, TRACESTATE } from "./semconv.js";

/**
 * The `params._meta` entries that carry `context` to the peer: what the configured propagators
 * write, and W3C `traceparent`/`tracestate` whenever they wrote none (the MCP conventions name
 * W3C trace context, and a process that never registered a propagator still links its traces).
 */
export function metaEntriesFor(telemetry: Telemetry, context: Context): Record<string, string> {
  const entries: Record<string, string> = {};
  telemetry.api.propagation.inject(context, entries);
  if (entries[TRACEPARENT] === undefined) {
    const span = telemetry.api.trace.getSpanContext(context);
    if (span && telemetry.api.isSpanContextValid(span)) {
      entries[TRACEPARENT] = formatTraceparent(span);
      const state = span.traceState?.serialize();
      if (state) entries[TRACESTATE] = state;
    }
  }
  return entries;
}

/**
 * `base` with the remote parent found in a request's `params._meta`, through the configured
 * propagators and else as W3C trace context; `base` itself when `_meta` carries none.
 */
export function contextFromMeta(
  telemetry: Telemetry,
  base: Context,
  meta: Record<string, unknown> | undefined,
): Context {
  if (!meta) return base;
  const { api } = telemetry;
  const carrier: Record<string, string> = {};
  for (const [key, value] of Object.entries(meta)) if (typeof value === "string") carrier[key] = value;
  const extracted = api.propagation.extract(base, carrier);
  if (api.trace.getSpanContext(extracted) !== api.trace.getSpanContext(base)) return extracted;
  const remote = parseTraceparent(carrier[TRACEPARENT], carrier[TRACESTATE]);
  if (!remote) return base;
  let traceState: ReturnType<typeof api.createTraceState> | undefined;
  try {
    traceState = remote.traceState === undefined ? undefined : api.createTraceState(remote.traceState);
  } catch {
    // A tracestate the API cannot parse is dropped; the parent link is what matters.
  }
  return api.trace.setSpanContext(base, {
    traceId: remote.traceId,
    spanId: remote.spanId,
    traceFlags: remote.traceFlags,
    isRemote: true,
    traceState,
  });
}
