import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { moduleLoadFailed } from "../errors/index.js";

const resolveFromHere = createRequire(import.meta.url);

let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * QuickJS's WebAssembly module, compiled once per process (compiling it took 40-90 ms of every
 * execution). A `WebAssembly.Module` is code only, no state: each execution instantiates it afresh in
 * its worker, with a memory of its own, so sharing the module shares nothing between programs. A
 * failed compile is not kept: the next execution tries again.
 */
export function quickjsModule(): Promise<WebAssembly.Module> {
  if (!compiled) {
    const attempt = readFile(resolveFromHere.resolve("@jitl/quickjs-wasmfile-release-sync/wasm")).then(
      (bytes) => WebAssembly.compile(bytes),
    );
    compiled = attempt;
    attempt.catch(() => {
      if (compiled === attempt) compiled = undefined;
    });
  }
  return compiled;
}

/**
 * The worker's file: the built sandbox-worker.js next to this module, or, when this module is loaded
 * from the sources (a test runner compiling TypeScript on the fly, which a worker thread cannot), the
 * built copy of the same file under dist/.
 */
export function sandboxWorkerFile(): URL {
  const built = new URL("./sandbox-worker.js", import.meta.url);
  if (existsSync(built)) return built;
  const fromSources = new URL("../../dist/src/codemode/sandbox-worker.js", import.meta.url);
  if (existsSync(fromSources)) return fromSources;
  throw moduleLoadFailed({ part: "the code-mode sandbox", detail: `${built.pathname} is missing` });
}
