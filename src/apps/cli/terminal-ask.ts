import { createInterface, type Interface } from "node:readline";
import type { CliIO } from "./cli-io.js";

import { stopSpinner } from "./progress-pause.js";
import { terminalText } from "./terminal.js";

/** Server-controlled text made safe for a terminal (no escape sequences, no carriage returns). */
export const clean = terminalText;

/** Asking needs a person: stdin and stderr both terminals. */
export function canAsk(io: CliIO): boolean {
  return Boolean(io.stdin?.isTTY && io.stderr.isTTY);
}

interface LineReader {
  readonly lines: string[];
  readonly waiting: ((line: string | undefined) => void)[];
  closed: boolean;
  readonly reader: Interface;
}

/** Answers typed ahead beyond this many are dropped: nothing read from a terminal grows without bound. */
const MAX_QUEUED_LINES = 64;

// One reader per input stream: answers typed ahead (or piped in tests) are kept for the next question.
const readers = new WeakMap<NodeJS.ReadableStream, LineReader>();

function readerFor(input: NodeJS.ReadableStream): LineReader {
  let state = readers.get(input);
  if (state) return state;
  const reader = createInterface({ input, terminal: false });
  const created: LineReader = { lines: [], waiting: [], closed: false, reader };
  reader.on("line", (line) => {
    const next = created.waiting.shift();
    if (next) next(line);
    else if (created.lines.length < MAX_QUEUED_LINES) created.lines.push(line);
  });
  reader.on("close", () => {
    created.closed = true;
    for (const next of created.waiting.splice(0)) next(undefined);
  });
  readers.set(input, created);
  state = created;
  return state;
}

/** Writes `question` on stderr and resolves with the next line (undefined at end of input or abort). */
export async function ask(io: CliIO, question: string): Promise<string | undefined> {
  if (!io.stdin) return undefined;
  const state = readerFor(io.stdin);
  stopSpinner(io.stderr);
  io.stderr.write(question);
  const queued = state.lines.shift();
  if (queued !== undefined) return queued;
  if (state.closed || io.signal?.aborted) return undefined;
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    io.signal?.addEventListener("abort", onAbort, { once: true });
    state.waiting.push((line) => {
      io.signal?.removeEventListener("abort", onAbort);
      resolve(line);
    });
  });
}

/** Stops reading the input (so an idle terminal does not keep the process alive). */
export function stopAsking(io: CliIO): void {
  if (!io.stdin) return;
  readers.get(io.stdin)?.reader.close();
  readers.delete(io.stdin);
}

export async function confirm(io: CliIO, question: string): Promise<boolean> {
  return /^\s*y(es)?\s*$/i.test((await ask(io, question)) ?? "");
}
