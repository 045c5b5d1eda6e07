/**
 * Links short-lived AbortControllers to a long-lived signal with ONE listener on that signal, however
 * many controllers are linked at once.
 *
 * The SDK's HTTP transports give every request of a session the same signal; a listener per request
 * on it (or `AbortSignal.any`, which some runtimes implement with listeners) makes Node print
 * `MaxListenersExceededWarning` on the host's stderr past 10 concurrent requests. Here the signal gets
 * one listener that aborts whatever is linked when it fires, and a request unlinks itself when it ends.
 */
const linked = new WeakMap<AbortSignal, Set<AbortController>>();

const nothing = () => {};

/** Aborts `controller` when `signal` aborts (at once if it already has); the result unlinks it. */
export function linkAbort(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return nothing;
  if (signal.aborted) {
    controller.abort(signal.reason);
    return nothing;
  }
  let targets = linked.get(signal);
  if (!targets) {
    const created = new Set<AbortController>();
    targets = created;
    linked.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        linked.delete(signal);
        for (const target of created) target.abort(signal.reason);
        created.clear();
      },
      { once: true },
    );
  }
  const set = targets;
  set.add(controller);
  return () => {
    set.delete(controller);
  };
}

/** Signals their owner made for one call (see `forOneCall`). */
const perCall = new WeakSet<AbortSignal>();

/**
 * Marks a signal made for one call only (a gateway makes one per request it serves): such a signal
 * never carries the listeners of many concurrent requests, so it can go to the SDK as it is, without
 * a linked controller of its own (whose signal is an allocation and a listener per call).
 */
export function forOneCall(signal: AbortSignal): AbortSignal {
  perCall.add(signal);
  return signal;
}

/** Whether `signal` was made for one call (see `forOneCall`). */
export function isForOneCall(signal: AbortSignal): boolean {
  return perCall.has(signal);
}
