import type { BridgeStats, LatencyStats } from "./tool-definition.js";

/** Latency samples kept per server and per tool: 8 KB each, whatever the call volume. */
const SAMPLES_PER_KEY = 1024;

export type CallOutcome = "ok" | "error" | "timeout";

class Series {
  calls = 0;
  errors = 0;
  timeouts = 0;
  max = 0;
  /** A ring of the most recent latencies: percentiles describe recent behaviour in bounded memory. */
  readonly samples = new Float64Array(SAMPLES_PER_KEY);
  next = 0;

  add(ms: number, outcome: CallOutcome): void {
    // A clock oddity must not poison the percentiles.
    if (!Number.isFinite(ms) || ms < 0) ms = 0;
    this.calls++;
    if (outcome === "error") this.errors++;
    if (outcome === "timeout") this.timeouts++;
    if (ms > this.max) this.max = ms;
    this.samples[this.next % SAMPLES_PER_KEY] = ms;
    this.next++;
  }

  snapshot(): LatencyStats {
    const count = Math.min(this.next, SAMPLES_PER_KEY);
    const base = { calls: this.calls, errors: this.errors, timeouts: this.timeouts };
    if (count === 0) return base;
    // A typed-array copy sorts numerically without a comparator.
    const sorted = this.samples.slice(0, count).sort();
    // Nearest rank: the smallest sample with at least q of the samples at or below it.
    const at = (q: number) => round(sorted[Math.max(0, Math.ceil(q * count) - 1)] as number);
    return { ...base, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: round(this.max) };
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Calls, errors, timeouts and latency per server and per exposed tool name. Counts are exact; the
 * percentiles describe the last 1,024 calls of each key (max is over all calls).
 */
export class CallStats {
  readonly #servers = new Map<string, Series>();
  readonly #tools = new Map<string, Series>();

  record(server: string, exposedName: string, ms: number, outcome: CallOutcome): void {
    seriesOf(this.#servers, server).add(ms, outcome);
    seriesOf(this.#tools, exposedName).add(ms, outcome);
  }

  snapshot(): BridgeStats {
    return {
      servers: Object.fromEntries([...this.#servers].map(([key, series]) => [key, series.snapshot()])),
      tools: Object.fromEntries([...this.#tools].map(([key, series]) => [key, series.snapshot()])),
    };
  }
}

function seriesOf(map: Map<string, Series>, key: string): Series {
  let series = map.get(key);
  if (!series) {
    series = new Series();
    map.set(key, series);
  }
  return series;
}
