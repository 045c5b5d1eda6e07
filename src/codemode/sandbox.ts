import { Worker } from "node:worker_threads";
import { sandboxFinished } from "../errors/codemode-errors.js";
import type { CodeLimitKind } from "../errors/index.js";
import { codeAborted, codeArgumentsNotJson, codeFailed, codeLimitReached } from "../errors/index.js";
import { errorText } from "../util/text-of.js";
import { executionSlots } from "./execution-slots.js";
import { wrapProgram } from "./guest-prelude.js";
import { describeLimit, type ResolvedLimits } from "./limits.js";
import { quickjsModule, sandboxWorkerFile } from "./quickjs-module.js";
import type { HostMessage, WorkerInput, WorkerMessage } from "./sandbox-messages.js";
import { typeScriptStripped } from "./strip-types.js";

/**
 * Runs one program in QuickJS compiled to WebAssembly, in a worker thread of its own: a fresh
 * WebAssembly instance, runtime and context per execution, so nothing of one program (globals,
 * prototypes, memory) reaches the next, and the guest's heap is not the host's. The guest sees the
 * language's own built-ins plus `tools` and `console` (see guest-prelude.ts); no `process`,
 * `require`, module loader, `fetch`, timers, filesystem or environment exists in it. Only strings
 * cross: arguments and results are JSON text, parsed on the other side.
 *
 * The worker keeps the host's event loop free whatever the program does: a native built-in stuck
 * near the memory limit, or a busy loop, never blocks the host; the worker is terminated at the wall
 * time, on the caller's abort, and past the output or tool-call limit. Inside it, the interrupt
 * handler stops a program past its CPU time and the runtime's allocator past its memory. Every stop
 * cancels the program's running tool calls through the signal each call got.
 */

/** What the sandbox needs from its host: the API's names and a way to call one. */
export interface SandboxHost {
  /** Namespace to function names: what `tools` holds. */
  readonly api: Readonly<Record<string, readonly string[]>>;
  /**
   * Runs `tools.<namespace>.<fn>(args)`. Resolves to the JSON value the program gets; rejects with an
   * Error whose message the program sees.
   */
  call(namespace: string, fn: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

export interface SandboxOutcome {
  /** What the program printed, line by line (cut at the output limit, which then stops it). */
  readonly output: string;
  /** The program's return value as JSON text, or undefined when it returned nothing. */
  readonly returned: string | undefined;
  readonly toolCalls: number;
}

export async function runInSandbox(
  code: string,
  host: SandboxHost,
  limits: ResolvedLimits,
  signal?: AbortSignal,
  caller = "",
): Promise<SandboxOutcome> {
  if (signal?.aborted) throw codeAborted({ cause: signal.reason });
  const startedAt = Date.now();
  const release = await slotFor(caller, limits, signal);
  let worker: Worker | undefined;
  try {
    const wasm = await quickjsModule();
    if (signal?.aborted) throw codeAborted({ cause: signal.reason });
    const workerData: WorkerInput = { wasm, api: host.api, limits, code: wrapProgram(code) };
    worker = new Worker(sandboxWorkerFile(), {
      workerData,
      // The guest's heap is WebAssembly memory, bounded by its own maximum (sandbox-worker.ts); the
      // worker's JavaScript heap only relays strings: what the program prints, a tool's result.
      resourceLimits: { maxOldGenerationSizeMb: 32 + Math.ceil((limits.maxOutputChars * 4) / (1024 * 1024)) },
      stdout: true,
      stderr: true,
    });
    const wallMs = Math.max(0, limits.timeoutMs - (Date.now() - startedAt));
    return await supervise(worker, code, host, limits, wallMs, signal);
  } finally {
    // The slot is free once the worker, and the memory it holds, is gone.
    if (worker) void worker.terminate().finally(release);
    else release();
  }
}

/**
 * An execution slot (execution-slots.ts): waited for within the program's wall time, which counts
 * from the call; the caller's abort ends the wait.
 */
async function slotFor(
  caller: string,
  limits: ResolvedLimits,
  signal: AbortSignal | undefined,
): Promise<() => void> {
  const wall = AbortSignal.timeout(limits.timeoutMs);
  try {
    return await executionSlots.acquire(caller, signal ? AbortSignal.any([signal, wall]) : wall);
  } catch (error) {
    if (signal?.aborted) throw codeAborted({ cause: signal.reason });
    if (wall.aborted)
      throw codeLimitReached({ limit: "wallTime", amount: describeLimit("wallTime", limits) });
    throw error;
  }
}

/** Answers the worker's messages until the program ends, a limit is reached or the caller aborts. */
function supervise(
  worker: Worker,
  code: string,
  host: SandboxHost,
  limits: ResolvedLimits,
  wallMs: number,
  signal: AbortSignal | undefined,
): Promise<SandboxOutcome> {
  return new Promise<SandboxOutcome>((resolve, reject) => {
    const run = new Supervision(worker, code, host, limits, (error, outcome) => {
      clearTimeout(wallTimer);
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(outcome as SandboxOutcome);
    });
    const onAbort = () => run.finish(codeAborted({ cause: signal?.reason }));
    signal?.addEventListener("abort", onAbort, { once: true });
    const wallTimer = setTimeout(() => run.limit("wallTime"), wallMs);
    worker.on("message", (message: WorkerMessage) => run.receive(message));
    worker.on("error", (error) =>
      run.finish(codeFailed({ detail: `the sandbox failed: ${errorText(error)}` })),
    );
    worker.on("exit", () =>
      run.finish(codeFailed({ detail: "the sandbox stopped before the program finished" })),
    );
  });
}

/** One program's run as the host sees it: its output, its tool calls, and how it ended. */
class Supervision {
  readonly #worker: Worker;
  readonly #code: string;
  readonly #host: SandboxHost;
  readonly #limits: ResolvedLimits;
  readonly #settle: (error: Error | undefined, outcome?: SandboxOutcome) => void;
  /** Cancels the program's running tool calls when it ends. */
  readonly #calls = new AbortController();
  readonly #output: string[] = [];
  #outputChars = 0;
  #toolCalls = 0;
  #running = 0;
  readonly #queue: (() => void)[] = [];
  #settled = false;

  constructor(
    worker: Worker,
    code: string,
    host: SandboxHost,
    limits: ResolvedLimits,
    settle: (error: Error | undefined, outcome?: SandboxOutcome) => void,
  ) {
    this.#worker = worker;
    this.#code = code;
    this.#host = host;
    this.#limits = limits;
    this.#settle = settle;
  }

  finish(error: Error | undefined, returned?: string): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#calls.abort(error ?? sandboxFinished());
    void this.#worker.terminate();
    this.#settle(error, { output: this.#output.join("\n"), returned, toolCalls: this.#toolCalls });
  }

  limit(kind: CodeLimitKind): void {
    this.finish(codeLimitReached({ limit: kind, amount: describeLimit(kind, this.#limits) }));
  }

  receive(message: WorkerMessage): void {
    if (this.#settled) return;
    switch (message.type) {
      case "call":
        this.#toolCalls++;
        if (this.#toolCalls > this.#limits.maxToolCalls) this.limit("toolCalls");
        else if (this.#running < this.#limits.maxConcurrentCalls) this.#startCall(message);
        else this.#queue.push(() => this.#startCall(message));
        break;
      case "print":
        this.#print(message.text);
        break;
      case "syntax":
        this.#stripTypes(message.detail);
        break;
      case "done":
        // What it returns counts with what it printed (the guest checks first: see guest-prelude.ts).
        if (this.#outputChars + (message.returned?.length ?? 0) > this.#limits.maxOutputChars) {
          this.limit("output");
        } else this.finish(undefined, message.returned);
        break;
      case "failed":
        this.finish(codeFailed({ detail: message.detail, syntax: message.syntax }));
        break;
      case "limit":
        this.limit(message.limit);
        break;
    }
  }

  #post(message: HostMessage): void {
    if (!this.#settled) this.#worker.postMessage(message);
  }

  #print(text: string): void {
    const max = this.#limits.maxOutputChars;
    const before = this.#outputChars;
    this.#outputChars += text.length + 1;
    if (this.#outputChars <= max) {
      this.#output.push(text);
      return;
    }
    this.#output.push(text.slice(0, Math.max(0, max - before)));
    this.limit("output");
  }

  /** The program did not parse as JavaScript: strip TypeScript's annotations and send it again. */
  #stripTypes(detail: string): void {
    void typeScriptStripped(wrapProgram(this.#code)).then((stripped) => {
      if (stripped.kind === "stripped") this.#post({ type: "compile", code: stripped.code });
      else {
        const hint = stripped.kind === "unavailable" ? stripped.hint : undefined;
        this.finish(codeFailed({ detail, syntax: true, hint }));
      }
    });
  }

  #startCall(message: Extract<WorkerMessage, { type: "call" }>): void {
    this.#running++;
    const { id, namespace, fn } = message;
    Promise.resolve()
      .then(() => this.#host.call(namespace, fn, jsonObject(namespace, fn, message.args), this.#calls.signal))
      .then(
        (value) => ({ ok: true, text: JSON.stringify(value ?? null) }),
        (error: unknown) => ({ ok: false, text: errorText(error) }),
      )
      .then((answer) => this.#post({ type: "settle", id, ...answer }))
      .finally(() => {
        this.#running--;
        this.#queue.shift()?.();
      });
  }
}

/** The arguments' JSON text as an object; anything else is refused before any tool runs. */
function jsonObject(server: string, tool: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw codeArgumentsNotJson({ server, tool, problem: errorText(error) });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw codeArgumentsNotJson({
      server,
      tool,
      problem: `got ${Array.isArray(value) ? "an array" : String(value)}`,
    });
  }
  return value as Record<string, unknown>;
}
