/**
 * The worker thread that runs one program in QuickJS (see sandbox.ts). Plain JavaScript in a string,
 * started with `new Worker(source, { eval: true })`, so it needs no build step and imports nothing of
 * ours: only QuickJS, from the paths the host resolved. It talks to the host by messages:
 *
 * - to the host: `call {id, namespace, fn, args}` (args as JSON text), `print {text}`, `syntax
 *   {detail}` (the program does not parse: the host may strip TypeScript and send `compile`),
 *   `done {returned}`, `failed {detail}`, `limit {limit}` (cpu or memory);
 * - from the host: `compile {code}`, `settle {id, ok, text}`.
 *
 * CPU time is the guest's time inside QuickJS (the interrupt handler), memory the runtime's limit.
 * Whatever a native built-in does between two interrupt checks, the host can still end the worker.
 */
export const SANDBOX_WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { pathToFileURL } = require("node:url");
const { quickjsPath, variantPath, prelude, api, limits, code } = workerData;

async function main() {
  const core = await import(pathToFileURL(quickjsPath).href);
  const variantModule = await import(pathToFileURL(variantPath).href);
  const variant = variantModule.default && variantModule.default.type ? variantModule.default : variantModule.default?.default ?? variantModule;
  const quickjs = await core.newQuickJSWASMModuleFromVariant(variant);
  const runtime = quickjs.newRuntime();
  const context = runtime.newContext();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  let cpuUsed = 0;
  let enteredAt;
  let stopped;
  runtime.setInterruptHandler(() => {
    if (stopped) return true;
    const now = cpuUsed + (enteredAt === undefined ? 0 : performance.now() - enteredAt);
    if (now > limits.cpuMs) {
      stopped = "cpu";
      return true;
    }
    return false;
  });
  const guest = (enter) => {
    enteredAt = performance.now();
    try {
      return enter();
    } finally {
      cpuUsed += performance.now() - enteredAt;
      enteredAt = undefined;
    }
  };
  const detailOf = (handle) => {
    try {
      const name = context.getProp(handle, "name");
      const message = context.getProp(handle, "message");
      const text = context.typeof(message) === "string"
        ? (context.typeof(name) === "string" ? context.getString(name) : "Error") + ": " + context.getString(message)
        : "a value that is not an Error";
      name.dispose();
      message.dispose();
      return text.slice(0, 4000);
    } catch (error) {
      return "an error that could not be read";
    }
  };
  const end = (message) => {
    parentPort.postMessage(message);
    parentPort.close();
  };
  const fail = (detail) => {
    if (stopped) return end({ type: "limit", limit: stopped });
    if (/out of memory/i.test(detail)) return end({ type: "limit", limit: "memory" });
    end({ type: "failed", detail });
  };
  const unwrap = (result) => {
    if (result.error) {
      const detail = detailOf(result.error);
      result.error.dispose();
      throw Object.assign(new Error(detail), { guestDetail: detail });
    }
    return result.value;
  };

  const pending = new Map();
  let nextId = 0;
  let wake;
  let woken = false;
  const wakeUp = () => {
    woken = true;
    if (wake) wake();
  };
  const nextWake = () => {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      wake = () => {
        wake = undefined;
        woken = false;
        resolve();
      };
    });
  };
  let compiled;
  parentPort.on("message", (message) => {
    if (message.type === "settle") {
      const deferred = pending.get(message.id);
      pending.delete(message.id);
      if (!deferred || !deferred.alive) return;
      const handle = message.ok
        ? context.newString(message.text)
        : context.newError({ name: "ToolError", message: message.text });
      if (message.ok) deferred.resolve(handle);
      else deferred.reject(handle);
      handle.dispose();
      wakeUp();
    } else if (message.type === "compile") {
      compiled = message.code;
      wakeUp();
    }
  });

  const call = context.newFunction("call", (ns, fn, args) => {
    const deferred = context.newPromise();
    const id = nextId++;
    pending.set(id, deferred);
    parentPort.postMessage({
      type: "call",
      id,
      namespace: context.getString(ns),
      fn: context.getString(fn),
      args: context.getString(args),
    });
    return deferred.handle;
  });
  const print = context.newFunction("print", (text) => {
    parentPort.postMessage({ type: "print", text: context.getString(text) });
  });
  try {
    const preludeFn = unwrap(guest(() => context.evalCode(prelude, "prelude.js")));
    const apiText = context.newString(JSON.stringify(api));
    const maxOutput = context.newNumber(limits.maxOutputChars);
    const runner = unwrap(guest(() => context.callFunction(preludeFn, context.undefined, call, print, apiText, maxOutput)));
    let first = guest(() => context.evalCode(code, "program.js"));
    if (first.error) {
      const detail = detailOf(first.error);
      first.error.dispose();
      if (!detail.startsWith("SyntaxError")) return fail(detail);
      parentPort.postMessage({ type: "syntax", detail });
      while (compiled === undefined) await nextWake();
      first = guest(() => context.evalCode(compiled, "program.ts"));
      if (first.error) {
        const again = detailOf(first.error);
        first.error.dispose();
        return end({ type: "failed", detail: again, syntax: again.startsWith("SyntaxError") });
      }
    }
    const program = first.value;
    const promise = unwrap(guest(() => context.callFunction(runner, context.undefined, program)));
    for (;;) {
      const jobs = guest(() => runtime.executePendingJobs());
      if (jobs.error) jobs.error.dispose();
      if (stopped) return end({ type: "limit", limit: stopped });
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") {
        const returned = context.typeof(state.value) === "string" ? context.getString(state.value) : undefined;
        return end({ type: "done", returned });
      }
      if (state.type === "rejected") return fail(detailOf(state.error));
      await nextWake();
    }
  } catch (error) {
    return fail(error && error.guestDetail ? error.guestDetail : String(error && error.message));
  }
}

main().catch((error) => {
  parentPort.postMessage({ type: "failed", detail: "the sandbox failed: " + String(error && error.message) });
  parentPort.close();
});
`;
