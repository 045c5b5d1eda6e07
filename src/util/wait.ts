/**
 * Waits for `promise` (its outcome ignored) at most `ms`, or until `signal` aborts, whichever comes
 * first; the timer and the abort listener are always removed.
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    onAbort = () => resolve();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([
      promise.then(
        () => undefined,
        () => undefined,
      ),
      gaveUp,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/** What `answerWithin` saw: the answer, no answer in time, or a failure. */
export type Answer<T> =
  | { readonly kind: "answered"; readonly value: T }
  | { readonly kind: "late" }
  | { readonly kind: "failed"; readonly error: unknown };

/**
 * `run`'s outcome if it settles within `ms`, else "late" (its later outcome is ignored); the timer is
 * always removed. For calls to a store that must never hold a request up for long.
 *
 * "Late" means the answer is late, not this process: when our own event loop was blocked past `ms`
 * (a busy or loaded machine), the timer runs in the same turn as the socket data that answered in
 * time. So the timer decides only after that turn's I/O (setImmediate runs after the poll phase):
 * an answer already received wins. Without this, a stalled replica called a healthy store late, and
 * three such stalls marked it down.
 */
export async function answerWithin<T>(run: () => Promise<T>, ms: number): Promise<Answer<T>> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const late = new Promise<{ readonly kind: "late" }>((resolve) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => resolve({ kind: "late" }));
    }, ms);
  });
  try {
    return await Promise.race([
      run().then(
        (value) => ({ kind: "answered", value }) as const,
        (error: unknown) => ({ kind: "failed", error }) as const,
      ),
      late,
    ]);
  } catch (error) {
    // `run` threw before returning a promise.
    return { kind: "failed", error };
  } finally {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  }
}

/** The first defined value, or undefined once every task has settled without one (a rejection counts as none). */
export function firstFound<T>(tasks: readonly Promise<T | undefined>[]): Promise<T | undefined> {
  return new Promise((resolve) => {
    let left = tasks.length;
    if (left === 0) resolve(undefined);
    const settle = (found: T | undefined) => {
      left--;
      if (found !== undefined || left === 0) resolve(found);
    };
    for (const task of tasks) task.then(settle, () => settle(undefined));
  });
}
