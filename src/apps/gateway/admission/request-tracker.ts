import type { Telemetry } from "../../../telemetry/create-telemetry.js";
import { traceServedRequest } from "../../../telemetry/served-request.js";

/**
 * Every downstream request passes through `handle`: the one place that tracks in-flight work (for
 * drain) and that instrumentation wraps: a SERVER span per request, parented on the trace context the
 * client sent in `params._meta` (client, gateway and upstream server form one trace), and the
 * `mcp.server.operation.duration` histogram, and the tool calls in flight (the autoscaling gauge).
 */
export interface RequestTracker {
  /** `params` are the request's own (its `name`/`uri` name the span, its `_meta` parents it). */
  handle<T>(method: string, params: unknown, fn: () => Promise<T>): Promise<T>;
  readonly inFlight: number;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
}

/** `peer`: attributes of how requests arrive (`network.transport`, `network.protocol.name`). */
export function requestTracker(
  telemetry?: Telemetry,
  peer: Readonly<Record<string, string>> = {},
): RequestTracker {
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  const settle = () => {
    if (inFlight !== 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  return {
    get inFlight() {
      return inFlight;
    },
    async handle(method, params, fn) {
      inFlight++;
      // The autoscaling signal: tool calls only (a listing is instant, a subscription stream idles).
      const counted = method === "tools/call" ? telemetry?.callsInFlight : undefined;
      counted?.add(1);
      try {
        return await traceServedRequest(telemetry, { method, params, peer }, fn);
      } finally {
        inFlight--;
        counted?.add(-1);
        settle();
      }
    },
    idle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
