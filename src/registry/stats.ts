import type { BridgeStats, LatencyStats } from "./types.js";

const SAMPLES_PER_KEY = 1024;

class Series {
  calls = 0;
  errors = 0;
  timeouts = 0;
  max = 0;
  /** A ring of the most recent latencies: percentiles describe recent behaviour in bounded memory. */
  readonly samples = new Float64Array(SAMPLES_PER_KEY);
  next = 0;

  add(ms: number, outcome: "ok" | "error" | "timeout"): void {
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
    const sorted = Array.from(this.samples.subarray(0, count)).sort((a, b) => a - b);
    const at = (q: number) => round(sorted[Math.min(count - 1, Math.floor(q * count))] as number);
    return { ...base, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: round(this.max) };
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** Calls, errors, timeouts and latency per server and per exposed tool name. */
export class CallStats {
  readonly #servers = new Map<string, Series>();
  readonly #tools = new Map<string, Series>();

  record(server: string, exposedName: string, ms: number, outcome: "ok" | "error" | "timeout"): void {
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
