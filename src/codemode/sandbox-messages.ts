import type { CodeLimitKind } from "../errors/index.js";
import type { ResolvedLimits } from "./limits.js";

/**
 * What the host (sandbox.ts) and the worker (sandbox-worker.ts) say to each other: strings and plain
 * data only.
 *
 * - to the host: `call {id, namespace, fn, args}` (args as JSON text), `print {text}`, `syntax
 *   {detail}` (the program does not parse: the host may strip TypeScript and send `compile`),
 *   `done {returned}`, `failed {detail}`, `limit {limit}` (cpu, memory or output);
 * - to the worker: `compile {code}`, `settle {id, ok, text}`.
 */
export type WorkerMessage =
  | { type: "call"; id: number; namespace: string; fn: string; args: string }
  | { type: "print"; text: string }
  | { type: "syntax"; detail: string }
  | { type: "done"; returned?: string }
  | { type: "failed"; detail: string; syntax?: boolean }
  | { type: "limit"; limit: CodeLimitKind };

export type HostMessage =
  | { type: "compile"; code: string }
  | { type: "settle"; id: number; ok: boolean; text: string };

/** What a worker starts with. */
export interface WorkerInput {
  /** QuickJS's WebAssembly module, compiled once per process (quickjs-module.ts). */
  readonly wasm: WebAssembly.Module;
  /** Namespace to function names: what `tools` holds. */
  readonly api: Readonly<Record<string, readonly string[]>>;
  readonly limits: ResolvedLimits;
  /** The program, wrapped (guest-prelude.ts). */
  readonly code: string;
}
