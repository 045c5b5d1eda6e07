/** One printed figure: mcp-bridge against a baseline measured in the same run. */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly bridge: number;
  readonly baseline: number;
  readonly baselineName: string;
  readonly detail?: string;
  /**
   * Which calls it measures: `steady` (after thousands of warm-up calls, what a long-running host
   * sees), `first` (the first calls of a fresh process, what a CLI run or a new host sees), or
   * neither (a one-off: start-up, memory, a catalog).
   */
  readonly phase?: "steady" | "first";
  /** When set: does the figure meet its target? */
  readonly target?: { readonly text: string; readonly met: boolean };
}

/** Latency samples in microseconds, with client CPU time, for one measured run. */
export interface Sample {
  readonly wallUs: number[];
  readonly cpuUs: number;
  readonly totalMs: number;
}

export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** Runs `fn` sequentially `count` times after `warmup` runs; wall time per call and client CPU per call. */
export async function measureSequential(
  count: number,
  warmup: number,
  fn: (i: number) => Promise<unknown>,
): Promise<Sample> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const wallUs: number[] = [];
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    wallUs.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  const totalMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: (used.user + used.system) / count, totalMs };
}

/** Runs `count` calls with `inFlight` at a time; returns calls per second and CPU per call. */
export async function measureThroughput(
  count: number,
  inFlight: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ perSecond: number; cpuUs: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { perSecond: count / seconds, cpuUs: (used.user + used.system) / count };
}

export const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
