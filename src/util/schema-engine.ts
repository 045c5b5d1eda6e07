import { createRequire } from "node:module";
import type * as AjvFormats from "@modelcontextprotocol/client/validators/ajv";
import type * as AjvDraft7Module from "ajv";
import type * as Ajv2019Module from "ajv/dist/2019.js";
import type * as Ajv2020Module from "ajv/dist/2020.js";
import { unsupportedSchemaDialect } from "../errors/tool-errors.js";
import { re2js } from "./lazy-modules.js";

// The engines (ajv: about 100 CommonJS modules; re2js) are loaded when a schema is first compiled,
// not when the library is imported: `--version`, `--help` and most hosts' start never need them.
// They are CommonJS (re2js ships both), so they load synchronously with `require`.
const require = createRequire(import.meta.url);
let loaded:
  | {
      Ajv2020: typeof Ajv2020Module.Ajv2020;
      Ajv2019: typeof Ajv2019Module.Ajv2019;
      AjvDraft7: typeof AjvDraft7Module.Ajv;
      addFormats: typeof AjvFormats.addFormats;
    }
  | undefined;
function load() {
  loaded ??= {
    Ajv2020: (require("ajv/dist/2020.js") as typeof Ajv2020Module).Ajv2020,
    Ajv2019: (require("ajv/dist/2019.js") as typeof Ajv2019Module).Ajv2019,
    AjvDraft7: (require("ajv") as typeof AjvDraft7Module).Ajv,
    addFormats: (require("@modelcontextprotocol/client/validators/ajv") as typeof AjvFormats).addFormats,
  };
  return loaded;
}

type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema engines for schemas that come from servers, which are untrusted input. A `pattern`
 * such as `^(a+)+$` makes a backtracking regex engine take exponential time on a crafted string, so
 * one schema could stall the host's event loop. Every `pattern` and `patternProperties` key is run
 * by RE2 (re2js, a pure-JS port: linear time in the input, whatever the pattern); a pattern RE2
 * cannot express (lookaround, backreferences) is not checked here (the server still checks it).
 *
 * Otherwise the engines are set up as the SDK's default: one per dialect (2020-12 when `$schema` is
 * absent, as MCP says; 2019-09; draft-07/06), `strict: false`, formats on, `allErrors`.
 */

type Flavor = "2020-12" | "2019-09" | "draft-07";
type Engine = InstanceType<typeof Ajv2020Module.Ajv2020>;

interface RegExpLike {
  test(input: string): boolean;
  toString(): string;
}

/** The RE2 engine in the shape Ajv's `code.regExp` option takes. */
const re2Engine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    // Ajv shares compiled patterns by their `toString()`, so each must print as itself.
    const printed = () => `/${pattern}/${flags}`;
    try {
      const RE2JS = re2js();
      const compiled = RE2JS.compile(pattern, flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
      return { test: (input: string) => compiled.matcher(input).find(), toString: printed };
    } catch {
      // Not expressible in RE2: accept rather than run it on a backtracking engine.
      return { test: () => true, toString: printed };
    }
  },
  { code: "re2js" },
);

const engines = new Map<Flavor, Engine>();

function options(allErrors: boolean) {
  return {
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors,
    code: { regExp: re2Engine },
  } as const;
}

/** The engine for a schema's declared dialect; undefined for a dialect we do not know. */
export function engineFor(schema: JsonSchema): Engine | undefined {
  const flavor = flavorOf(schema.$schema);
  if (!flavor) return undefined;
  let engine = engines.get(flavor);
  if (!engine) {
    const { Ajv2020, Ajv2019, AjvDraft7, addFormats } = load();
    const Class = flavor === "2020-12" ? Ajv2020 : flavor === "2019-09" ? Ajv2019 : AjvDraft7;
    engine = new Class(options(true)) as Engine;
    addFormats(engine as never);
    engines.set(flavor, engine);
  }
  return engine;
}

/** Forgets compiled schemas (each engine keeps every schema it compiled). */
export function resetEngines(): void {
  engines.clear();
}

function flavorOf(dialect: unknown): Flavor | undefined {
  if (dialect === undefined) return "2020-12";
  if (typeof dialect !== "string") return undefined;
  if (dialect.includes("2020-12")) return "2020-12";
  if (dialect.includes("2019-09")) return "2019-09";
  if (/draft-0[67]/.test(dialect)) return "draft-07";
  return undefined;
}

/**
 * The SDK's `jsonSchemaValidator` interface over the safe engines: given to every Client, so the
 * SDK's own checks of tool results against a server's `outputSchema` are safe too.
 */
export const safeJsonSchemaValidator = {
  getValidator<T>(schema: JsonSchema) {
    const engine = engineFor(schema);
    if (!engine) throw unsupportedSchemaDialect({ dialect: schema.$schema });
    const validate = engine.compile(schema);
    return (input: unknown) =>
      validate(input)
        ? { valid: true as const, data: input as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: engine.errorsText(validate.errors) };
  },
};
