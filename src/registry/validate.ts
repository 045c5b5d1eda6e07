import { Ajv, AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import type { JsonSchema } from "./types.js";

export interface ArgumentIssue {
  /** Dotted path of the bad field (`a.b.0`); empty for the arguments object itself. */
  readonly path: string;
  readonly message: string;
}

type Verdict = (data: unknown) => { valid: boolean; errorMessage?: string | undefined };
type Detail = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
};

interface Compiled {
  readonly verdict?: Verdict;
  detail?: Detail | null;
}

// The SDK's validator picks the engine by the schema's `$schema` (2020-12 by default, as MCP says),
// so its verdict is the right one; it only reports one joined message, though. The classic engine
// (draft-07 with the 2019 keywords) gives per-field errors for the listing.
let verdicts: AjvJsonSchemaValidator | undefined;
let classic: InstanceType<typeof Ajv> | undefined;
const byObject = new WeakMap<object, Compiled>();
// Ajv engines keep every schema they compiled. A long-lived bridge sees a new schema object on every
// tools/list refresh, so identical schemas share one compilation, and past this many distinct ones
// the engines start afresh (compiled validators in use keep working).
const byText = new Map<string, Compiled>();
const MAX_COMPILED = 500;

/**
 * Checks arguments against a tool's inputSchema before anything is sent, so the LLM gets a precise
 * list of bad fields without a round trip. Compiled validators are cached per schema. A schema
 * no engine can compile is not held against the arguments: the server validates anyway.
 */
export function validateArguments(schema: JsonSchema, args: unknown): ArgumentIssue[] {
  let compiled = byObject.get(schema);
  if (!compiled) {
    const text = JSON.stringify(schema);
    compiled = byText.get(text);
    if (!compiled) {
      if (byText.size >= MAX_COMPILED) {
        byText.clear();
        verdicts = undefined;
        classic = undefined;
      }
      compiled = compile(schema);
      byText.set(text, compiled);
    }
    byObject.set(schema, compiled);
  }
  let fallback = "the arguments do not match the tool's input schema";
  if (compiled.verdict) {
    const verdict = compiled.verdict(args);
    if (verdict.valid) return [];
    if (verdict.errorMessage) fallback = verdict.errorMessage.replace(/\bdata\b/g, "arguments");
  }
  const detail = detailOf(schema, compiled);
  if (!detail) return compiled.verdict ? [{ path: "", message: fallback }] : [];
  if (detail(args)) {
    // Only the dialect-aware engine saw a problem (a 2020-12-only keyword): report its words.
    return compiled.verdict ? [{ path: "", message: fallback }] : [];
  }
  return (detail.errors ?? []).map((error) => {
    const missing = (error.params as { missingProperty?: string } | undefined)?.missingProperty;
    const pointer = missing === undefined ? error.instancePath : `${error.instancePath}/${missing}`;
    return { path: pointerToPath(pointer), message: error.message ?? "is invalid" };
  });
}

function compile(schema: JsonSchema): Compiled {
  try {
    verdicts ??= new AjvJsonSchemaValidator();
    return { verdict: verdicts.getValidator(schema) as Verdict };
  } catch {
    // An unknown `$schema` dialect or a schema the engine rejects: the classic engine may still cope.
    return {};
  }
}

function detailOf(schema: JsonSchema, compiled: Compiled): Detail | null {
  if (compiled.detail === undefined) {
    try {
      classic ??= new Ajv({
        allErrors: true,
        strict: false,
        validateSchema: false,
        next: true,
        unevaluated: true,
      });
      const { $schema: _dialect, ...rest } = schema;
      compiled.detail = classic.compile(rest) as Detail;
    } catch {
      compiled.detail = null;
    }
  }
  return compiled.detail;
}

/** `/a/b~1c/0` -> `a.b/c.0`: what a person or an LLM reads, not a JSON Pointer. */
function pointerToPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");
}
