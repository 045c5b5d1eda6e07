import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
} from "quickjs-emscripten-core";
import type { CodeLimitKind } from "../errors/index.js";
import { guestPrelude, OUTPUT_EXCEEDED } from "./guest-prelude.js";
import type { HostMessage, WorkerInput, WorkerMessage } from "./sandbox-messages.js";

/**
 * The worker thread that runs one program in QuickJS (see sandbox.ts): started by the host as this
 * file's built copy under dist/, it imports nothing of ours besides the prelude and the message types.
 *
 * QuickJS gets a fresh instance of the module the host compiled once (`wasm`), over a
 * `WebAssembly.Memory` of its own whose maximum is the program's memory limit: the runtime's own
 * limit counts only what QuickJS allocates through its allocator, while the WebAssembly memory is
 * what the process really holds, and it can never grow past its maximum. A failed growth is an
 * allocation failure inside QuickJS (`out of memory`), reported as the memory limit.
 *
 * CPU time is the guest's time inside QuickJS (the interrupt handler). Whatever a native built-in
 * does between two interrupt checks, the host can still end the worker.
 */

/** The smallest memory QuickJS's build accepts (its INITIAL_MEMORY, 16 MiB), in 64 KiB pages. */
const MIN_PAGES = 256;
const PAGE_BYTES = 64 * 1024;

// The package's types describe its CommonJS build; imported as ESM, its default export is the variant.
const variant = releaseSync as unknown as QuickJSSyncVariant;
const port = parentPort as MessagePort;
const input = workerData as WorkerInput;

function send(message: WorkerMessage): void {
  port.postMessage(message);
}

/** The guest's memory: what QuickJS can grow to, and no more. */
function boundedMemory(memoryBytes: number): WebAssembly.Memory {
  const maximum = Math.max(MIN_PAGES, Math.ceil(memoryBytes / PAGE_BYTES));
  return new WebAssembly.Memory({ initial: MIN_PAGES, maximum });
}

/** Whether the memory reached its maximum (a failed growth may surface as a RuntimeError). */
function memoryFull(memory: WebAssembly.Memory, memoryBytes: number): boolean {
  const maximum = Math.max(MIN_PAGES, Math.ceil(memoryBytes / PAGE_BYTES)) * PAGE_BYTES;
  return memory.buffer.byteLength + 4 * 1024 * 1024 >= maximum;
}

class GuestRun {
  readonly #context: QuickJSContext;
  readonly #runtime: QuickJSRuntime;
  readonly #memory: WebAssembly.Memory;
  readonly #pending = new Map<number, QuickJSDeferredPromise>();
  #nextId = 0;
  #cpuUsed = 0;
  #enteredAt: number | undefined;
  #stopped: CodeLimitKind | undefined;
  #wake: (() => void) | undefined;
  #woken = false;
  compiled: string | undefined;

  constructor(runtime: QuickJSRuntime, memory: WebAssembly.Memory) {
    this.#runtime = runtime;
    this.#memory = memory;
    this.#context = runtime.newContext();
    runtime.setMemoryLimit(input.limits.memoryBytes);
    runtime.setMaxStackSize(input.limits.stackBytes);
    runtime.setInterruptHandler(() => {
      if (this.#stopped) return true;
      const now = this.#cpuUsed + (this.#enteredAt === undefined ? 0 : performance.now() - this.#enteredAt);
      if (now <= input.limits.cpuMs) return false;
      this.#stopped = "cpu";
      return true;
    });
  }

  get context(): QuickJSContext {
    return this.#context;
  }

  /** Runs `enter` as guest time (the CPU limit counts it). */
  guest<T>(enter: () => T): T {
    this.#enteredAt = performance.now();
    try {
      return enter();
    } finally {
      this.#cpuUsed += performance.now() - this.#enteredAt;
      this.#enteredAt = undefined;
    }
  }

  /** An error handle's `name: message`, cut; the handle is disposed. */
  detailOf(handle: QuickJSHandle): string {
    const context = this.#context;
    try {
      const name = context.getProp(handle, "name");
      const message = context.getProp(handle, "message");
      const text =
        context.typeof(message) === "string"
          ? `${context.typeof(name) === "string" ? context.getString(name) : "Error"}: ${context.getString(message)}`
          : "a value that is not an Error";
      name.dispose();
      message.dispose();
      return text.slice(0, 4000);
    } catch {
      return "an error that could not be read";
    } finally {
      handle.dispose();
    }
  }

  /** The value of a result, or a throw carrying the guest's error text. */
  unwrap(result: { error?: QuickJSHandle; value?: QuickJSHandle }): QuickJSHandle {
    if (result.error) throw new GuestError(this.detailOf(result.error));
    return result.value as QuickJSHandle;
  }

  /**
   * The end of a failed program: a limit when one was reached, else its error. `inHost`: the failure
   * came from QuickJS itself (a WebAssembly trap), not from the program; at a full memory that is the
   * memory limit.
   */
  fail(detail: string, inHost = false): WorkerMessage {
    if (this.#stopped) return { type: "limit", limit: this.#stopped };
    if (/out of memory/i.test(detail) || (inHost && memoryFull(this.#memory, input.limits.memoryBytes))) {
      return { type: "limit", limit: "memory" };
    }
    return { type: "failed", detail };
  }

  get stopped(): CodeLimitKind | undefined {
    return this.#stopped;
  }

  wakeUp(): void {
    this.#woken = true;
    this.#wake?.();
  }

  nextWake(): Promise<void> {
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

  /** The host functions the prelude keeps: `call` (a tool call, a promise) and `print`. */
  hostFunctions(): { call: QuickJSHandle; print: QuickJSHandle } {
    const context = this.#context;
    const call = context.newFunction("call", (ns, fn, args) => {
      const deferred = context.newPromise();
      const id = this.#nextId++;
      this.#pending.set(id, deferred);
      send({
        type: "call",
        id,
        namespace: context.getString(ns),
        fn: context.getString(fn),
        args: context.getString(args),
      });
      return deferred.handle;
    });
    const print = context.newFunction("print", (text) => {
      send({ type: "print", text: context.getString(text) });
    });
    return { call, print };
  }

  /** A message of the host: a tool call's answer, or the program with its types stripped. */
  receive(message: HostMessage): void {
    if (message.type === "compile") {
      this.compiled = message.code;
    } else {
      const deferred = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (!deferred?.alive) return;
      const context = this.#context;
      const handle = message.ok
        ? context.newString(message.text)
        : context.newError({ name: "ToolError", message: message.text });
      if (message.ok) deferred.resolve(handle);
      else deferred.reject(handle);
      handle.dispose();
    }
    this.wakeUp();
  }

  /** Runs the guest's pending jobs until `promise` settles: the program's end. */
  async settle(promise: QuickJSHandle): Promise<WorkerMessage> {
    const context = this.#context;
    for (;;) {
      const jobs = this.guest(() => this.#runtime.executePendingJobs());
      if (jobs.error) jobs.error.dispose();
      if (this.#stopped) return { type: "limit", limit: this.#stopped };
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") {
        const value = state.value;
        const kind = context.typeof(value);
        if (kind === "number" && context.getNumber(value) === OUTPUT_EXCEEDED) {
          return { type: "limit", limit: "output" };
        }
        return { type: "done", returned: kind === "string" ? context.getString(value) : undefined };
      }
      if (state.type === "rejected") return this.fail(this.detailOf(state.error));
      await this.nextWake();
    }
  }
}

class GuestError extends Error {}

/** Evaluates the program; a syntax error asks the host to strip TypeScript, then tries once more. */
async function evaluate(run: GuestRun): Promise<{ program: QuickJSHandle } | { end: WorkerMessage }> {
  const first = run.guest(() => run.context.evalCode(input.code, "program.js"));
  if (!first.error) return { program: first.value };
  const detail = run.detailOf(first.error);
  if (!detail.startsWith("SyntaxError")) return { end: run.fail(detail) };
  send({ type: "syntax", detail });
  while (run.compiled === undefined) await run.nextWake();
  const code = run.compiled;
  const second = run.guest(() => run.context.evalCode(code, "program.ts"));
  if (!second.error) return { program: second.value };
  const again = run.detailOf(second.error);
  return { end: { type: "failed", detail: again, syntax: again.startsWith("SyntaxError") } };
}

async function main(): Promise<WorkerMessage> {
  const memory = boundedMemory(input.limits.memoryBytes);
  const quickjs = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmModule: input.wasm, wasmMemory: memory }),
  );
  const run = new GuestRun(quickjs.newRuntime(), memory);
  port.on("message", (message: HostMessage) => run.receive(message));
  const context = run.context;
  try {
    const { call, print } = run.hostFunctions();
    const prelude = run.unwrap(
      run.guest(() => context.evalCode(`(${guestPrelude.toString()})`, "prelude.js")),
    );
    const apiText = context.newString(JSON.stringify(input.api));
    const maxOutput = context.newNumber(input.limits.maxOutputChars);
    const runner = run.unwrap(
      run.guest(() => context.callFunction(prelude, context.undefined, call, print, apiText, maxOutput)),
    );
    const evaluated = await evaluate(run);
    if ("end" in evaluated) return evaluated.end;
    const { program } = evaluated;
    const promise = run.unwrap(run.guest(() => context.callFunction(runner, context.undefined, program)));
    return await run.settle(promise);
  } catch (error) {
    if (error instanceof GuestError) return run.fail(error.message);
    return run.fail(String((error as Error)?.message), true);
  }
}

main().then(
  (message) => {
    send(message);
    port.close();
  },
  (error: unknown) => {
    send({ type: "failed", detail: `the sandbox failed: ${String((error as Error)?.message)}` });
    port.close();
  },
);
