import { engineFor, resetEngines } from "../util/schema-engine.js";
import type { JsonSchema } from "./tool-definition.js";

export interface ArgumentIssue {
  /** Dotted path of the bad field (`a.b.0`); empty for the arguments object itself. */
  readonly path: string;
  readonly message: string;
}

type Compiled = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
};

const byObject = new WeakMap<object, Compiled | null>();
// Engines keep every schema they compiled. A long-lived bridge sees a new schema object on every
// tools/list refresh, so identical schemas share one compilation, and past this many distinct ones
// the engines start afresh (compiled validators in use keep working).
const byText = new Map<string, Compiled | null>();
const MAX_COMPILED = 500;

/**
 * Checks arguments against a tool's inputSchema before anything is sent, so the LLM gets a precise
 * list of bad fields without a round trip. The schema is the server's, so it is compiled by the
 * safe engines (RE2 for every pattern: no schema can stall the host). Compiled validators are cached
 * per schema. A schema no engine can compile is not held against the arguments: the server
 * validates anyway.
 */
export function validateArguments(schema: JsonSchema, args: unknown): ArgumentIssue[] {
  let compiled = byObject.get(schema);
  if (compiled === undefined) {
    const text = JSON.stringify(schema);
    compiled = byText.get(text);
    if (compiled === undefined) {
      if (byText.size >= MAX_COMPILED) {
        byText.clear();
        resetEngines();
      }
      compiled = compile(schema);
      byText.set(text, compiled);
    }
    byObject.set(schema, compiled);
  }
  if (!compiled || compiled(args)) return [];
  return (compiled.errors ?? []).map((error) => {
    const missing = (error.params as { missingProperty?: string } | undefined)?.missingProperty;
    const pointer = missing === undefined ? error.instancePath : `${error.instancePath}/${missing}`;
    return { path: pointerToPath(pointer), message: error.message ?? "is invalid" };
  });
}

function compile(schema: JsonSchema): Compiled | null {
  try {
    const engine = engineFor(schema);
    return engine ? (engine.compile(schema) as Compiled) : null;
  } catch {
    // A schema the engine rejects (an unknown keyword shape, a broken $ref): not checked here.
    return null;
  }
}

/** `/a/b~1c/0` -> `a.b/c.0`: what a person or an LLM reads, not a JSON Pointer. */
function pointerToPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");
}
