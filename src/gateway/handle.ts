/**
 * Every downstream request passes through `handle`: the one place that tracks in-flight work (for
 * drain) and that instrumentation (spans, metrics) wraps.
 */
export interface RequestTracker {
  handle<T>(method: string, target: string | undefined, fn: () => Promise<T>): Promise<T>;
  readonly inFlight: number;
  /** Resolves once no request is in flight. */
  idle(): Promise<void>;
}

export function requestTracker(): RequestTracker {
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
    async handle(_method, _target, fn) {
      inFlight++;
      try {
        return await fn();
      } finally {
        inFlight--;
        settle();
      }
    },
    idle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
