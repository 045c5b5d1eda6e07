import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
} from "quickjs-emscripten-core";
import { codeAborted, codeArgumentsNotJson, codeFailed, codeLimitReached } from "../errors/index.js";
import { errorText } from "../util/text-of.js";
import { GUEST_PRELUDE, wrapProgram } from "./guest-prelude.js";
import { describeLimit, type ResolvedLimits } from "./limits.js";
import { typeScriptStripped } from "./strip-types.js";

/**
 * Runs one program in QuickJS compiled to WebAssembly: a fresh WebAssembly instance, runtime and
 * context per execution, so nothing of one program (globals, prototypes, leaked memory) reaches the
 * next, and the guest's heap is not the host's. The guest sees the language's own built-ins plus
 * `tools` and `console` (see guest-prelude.ts); no `process`, `require`, module loader, `fetch`,
 * timers, filesystem or environment exists in it. Only strings cross: arguments and results are
 * JSON text, parsed on the other side.
 *
 * Limits: the interrupt handler stops a program past its CPU time (guest time only: waiting for tools
 * does not count), the runtime's allocator stops it past its memory, the host stops it past its
 * output, tool calls or wall time. The caller's AbortSignal cancels it. Every stop cancels the
 * program's running tool calls through the signal each call got.
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

type QuickJSModule = Awaited<
  ReturnType<typeof import("quickjs-emscripten-core").newQuickJSWASMModuleFromVariant>
>;

/** Loaded on first use: nothing else pays for QuickJS. A fresh WebAssembly instance per execution. */
async function newQuickJS(): Promise<QuickJSModule> {
  const [{ newQuickJSWASMModuleFromVariant }, variant] = await Promise.all([
    import("quickjs-emscripten-core"),
    import("@jitl/quickjs-wasmfile-release-sync"),
  ]);
  return newQuickJSWASMModuleFromVariant(
    variant as unknown as Parameters<typeof newQuickJSWASMModuleFromVariant>[0],
  );
}

export async function runInSandbox(
  code: string,
  host: SandboxHost,
  limits: ResolvedLimits,
  signal?: AbortSignal,
): Promise<SandboxOutcome> {
  if (signal?.aborted) throw codeAborted({ cause: signal.reason });
  const quickjs = await newQuickJS();
  const runtime = quickjs.newRuntime();
  const context = runtime.newContext();
  const execution = new Execution(runtime, context, host, limits);
  const onAbort = () => execution.stop(codeAborted({ cause: signal?.reason }));
  signal?.addEventListener("abort", onAbort, { once: true });
  const wallTimer = setTimeout(
    () => execution.stop(codeLimitReached({ limit: "wallTime", amount: describeLimit("wallTime", limits) })),
    limits.timeoutMs,
  );
  try {
    if (signal?.aborted) onAbort();
    return await execution.run(code);
  } finally {
    clearTimeout(wallTimer);
    signal?.removeEventListener("abort", onAbort);
    execution.dispose();
  }
}

class Execution {
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #host: SandboxHost;
  readonly #limits: ResolvedLimits;
  /** Cancels the running tool calls when the program ends, whatever ended it. */
  readonly #calls = new AbortController();
  readonly #pending = new Set<QuickJSDeferredPromise>();
  readonly #queue: (() => void)[] = [];
  readonly #handles: QuickJSHandle[] = [];
  #running = 0;
  #toolCalls = 0;
  #output: string[] = [];
  #outputChars = 0;
  #cpuUsedMs = 0;
  #enteredAt: number | undefined;
  #stopped: Error | undefined;
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(runtime: QuickJSRuntime, context: QuickJSContext, host: SandboxHost, limits: ResolvedLimits) {
    this.#runtime = runtime;
    this.#context = context;
    this.#host = host;
    this.#limits = limits;
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(() => {
      if (this.#stopped) return true;
      if (this.#cpuNow() > this.#limits.cpuMs) {
        this.stop(codeLimitReached({ limit: "cpu", amount: describeLimit("cpu", limits) }));
        return true;
      }
      return false;
    });
  }

  /** Ends the program with this error (the first stop wins); it is interrupted at its next step. */
  stop(error: Error): void {
    this.#stopped ??= error;
    this.#calls.abort(error);
    this.#wakeUp();
  }

  async run(code: string): Promise<SandboxOutcome> {
    const runner = this.#installPrelude();
    const program = await this.#compile(code);
    const promise = this.#guest(() => this.#context.callFunction(runner, this.#context.undefined, program));
    const promiseHandle = this.#keep(this.#unwrap(promise));
    for (;;) {
      const jobs = this.#guest(() => this.#runtime.executePendingJobs());
      if (jobs.error) jobs.error.dispose();
      if (this.#stopped) throw this.#stopped;
      const state = this.#context.getPromiseState(promiseHandle);
      if (state.type === "fulfilled") {
        const returned =
          this.#context.typeof(state.value) === "string" ? this.#context.getString(state.value) : undefined;
        if (!state.notAPromise) state.value.dispose();
        return { output: this.#output.join("\n"), returned, toolCalls: this.#toolCalls };
      }
      if (state.type === "rejected") {
        const detail = this.#errorDetail(state.error);
        state.error.dispose();
        throw this.#classified(detail);
      }
      await this.#nextWake();
    }
  }

  dispose(): void {
    this.#stopped ??= new Error("finished");
    this.#calls.abort(this.#stopped);
    // A disposal problem (a handle the guest still holds) must not hide the program's outcome; the
    // whole WebAssembly instance is dropped with this execution anyway.
    try {
      for (const deferred of this.#pending) if (deferred.alive) deferred.dispose();
      for (const handle of this.#handles) if (handle.alive) handle.dispose();
      this.#context.dispose();
      this.#runtime.dispose();
    } catch {
      // The instance is garbage now; nothing of it is used again.
    }
  }

  /** Evaluates the prelude: `console` and `tools` installed, the runner function returned. */
  #installPrelude(): QuickJSHandle {
    const ctx = this.#context;
    const prelude = this.#keep(this.#unwrap(ctx.evalCode(GUEST_PRELUDE, "prelude.js")));
    const call = this.#keep(ctx.newFunction("call", (ns, fn, args) => this.#startCall(ns, fn, args)));
    const print = this.#keep(ctx.newFunction("print", (text) => this.#print(ctx.getString(text))));
    const api = this.#keep(ctx.newString(JSON.stringify(this.#host.api)));
    const limit = this.#keep(ctx.newNumber(this.#limits.maxOutputChars));
    return this.#keep(
      this.#unwrap(this.#guest(() => ctx.callFunction(prelude, ctx.undefined, call, print, api, limit))),
    );
  }

  /** The program as an async function; TypeScript annotations removed when it does not parse as JavaScript. */
  async #compile(code: string): Promise<QuickJSHandle> {
    const first = this.#guest(() => this.#context.evalCode(wrapProgram(code), "program.js"));
    if (!first.error) return this.#keep(first.value);
    const detail = this.#errorDetail(first.error);
    first.error.dispose();
    if (!detail.startsWith("SyntaxError")) throw this.#classified(detail);
    const stripped = await typeScriptStripped(wrapProgram(code));
    if (stripped.kind === "unavailable") throw codeFailed({ detail, syntax: true, hint: stripped.hint });
    if (stripped.kind === "failed") throw codeFailed({ detail, syntax: true });
    const second = this.#guest(() => this.#context.evalCode(stripped.code, "program.ts"));
    if (!second.error) return this.#keep(second.value);
    const again = this.#errorDetail(second.error);
    second.error.dispose();
    throw codeFailed({ detail: again, syntax: again.startsWith("SyntaxError") });
  }

  /** `tools.ns.fn(args)` from the guest: a guest promise settled when the host's call settles. */
  #startCall(nsHandle: QuickJSHandle, fnHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const ctx = this.#context;
    const namespace = ctx.getString(nsHandle);
    const fn = ctx.getString(fnHandle);
    const text = ctx.getString(argsHandle);
    this.#toolCalls++;
    if (this.#toolCalls > this.#limits.maxToolCalls) {
      this.stop(codeLimitReached({ limit: "toolCalls", amount: describeLimit("toolCalls", this.#limits) }));
    }
    const deferred = ctx.newPromise();
    this.#pending.add(deferred);
    if (this.#stopped) return deferred.handle;
    const start = () => {
      this.#running++;
      Promise.resolve()
        .then(() => this.#host.call(namespace, fn, jsonObject(namespace, fn, text), this.#calls.signal))
        .then(
          (value) => this.#settle(deferred, () => ctx.newString(JSON.stringify(value ?? null))),
          (error: unknown) =>
            this.#settle(
              deferred,
              () => ctx.newError({ name: "ToolError", message: errorText(error) }),
              true,
            ),
        )
        .finally(() => {
          this.#running--;
          this.#queue.shift()?.();
        });
    };
    if (this.#running < this.#limits.maxConcurrentCalls) start();
    else this.#queue.push(start);
    return deferred.handle;
  }

  #settle(deferred: QuickJSDeferredPromise, value: () => QuickJSHandle, rejected = false): void {
    this.#pending.delete(deferred);
    if (this.#stopped || !deferred.alive) return;
    const handle = value();
    if (rejected) deferred.reject(handle);
    else deferred.resolve(handle);
    handle.dispose();
    this.#wakeUp();
  }

  #print(text: string): void {
    if (this.#stopped) return;
    this.#outputChars += text.length + 1;
    if (this.#outputChars > this.#limits.maxOutputChars) {
      const room = Math.max(0, this.#limits.maxOutputChars - (this.#outputChars - text.length - 1));
      this.#output.push(text.slice(0, room));
      this.stop(codeLimitReached({ limit: "output", amount: describeLimit("output", this.#limits) }));
      return;
    }
    this.#output.push(text);
  }

  /** A synchronous entry into the guest, timed against the CPU limit. */
  #guest<T>(enter: () => T): T {
    this.#enteredAt = performance.now();
    try {
      return enter();
    } finally {
      this.#cpuUsedMs += performance.now() - this.#enteredAt;
      this.#enteredAt = undefined;
    }
  }

  #cpuNow(): number {
    return this.#cpuUsedMs + (this.#enteredAt === undefined ? 0 : performance.now() - this.#enteredAt);
  }

  #unwrap(result: { error?: QuickJSHandle; value?: QuickJSHandle }): QuickJSHandle {
    if (result.error) {
      const detail = this.#errorDetail(result.error);
      result.error.dispose();
      throw this.#stopped ?? this.#classified(detail);
    }
    return result.value as QuickJSHandle;
  }

  #keep(handle: QuickJSHandle): QuickJSHandle {
    this.#handles.push(handle);
    return handle;
  }

  /** `Name: message` of a guest error, read as strings only (a guest object is never trusted as one). */
  #errorDetail(error: QuickJSHandle): string {
    const ctx = this.#context;
    try {
      const name = ctx.getProp(error, "name");
      const message = ctx.getProp(error, "message");
      const text =
        ctx.typeof(message) === "string"
          ? `${ctx.typeof(name) === "string" ? ctx.getString(name) : "Error"}: ${ctx.getString(message)}`
          : "a value that is not an Error";
      name.dispose();
      message.dispose();
      return text.slice(0, 4000);
    } catch {
      return "an error that could not be read";
    }
  }

  /** The error the caller gets: a limit when the runtime ran out of memory, else the program's failure. */
  #classified(detail: string): Error {
    if (this.#stopped) return this.#stopped;
    if (/out of memory/i.test(detail)) {
      return codeLimitReached({ limit: "memory", amount: describeLimit("memory", this.#limits) });
    }
    return codeFailed({ detail });
  }

  #wakeUp(): void {
    this.#woken = true;
    this.#wake?.();
  }

  #nextWake(): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        this.#woken = false;
        resolve();
      };
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
