/**
 * The "Starting servers" spinner redraws its line on stderr every 80 ms: a question written there
 * meanwhile (a changed tool to accept, an input, an elicitation) would be overwritten and answered
 * blind. Whoever asks on a terminal stops the spinner first, for the rest of that start.
 */
const spinners = new WeakMap<object, () => void>();

/** Registers the spinner drawing on `stream`; returns its removal. */
export function registerSpinner(stream: object, stop: () => void): () => void {
  spinners.set(stream, stop);
  return () => {
    if (spinners.get(stream) === stop) spinners.delete(stream);
  };
}

/** Stops the spinner drawing on `stream`, if any, before something is asked there. */
export function stopSpinner(stream: object): void {
  const stop = spinners.get(stream);
  spinners.delete(stream);
  stop?.();
}

/** What clears the spinner's line on `stream` before other text is written there; empty without one. */
export function spinnerLineClear(stream: object): string {
  return spinners.has(stream) ? "\r\u001b[2K" : "";
}
