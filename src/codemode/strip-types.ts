/**
 * TypeScript annotations removed from a program, when the host can: Node.js 22.13+ has
 * `module.stripTypeScriptTypes` (types replaced by spaces, nothing transformed); else the
 * `typescript` package's `transpileModule` when it is installed. Node.js 20 without `typescript`
 * runs JavaScript only, and the program's syntax error says so.
 */
import { TYPESCRIPT_UNAVAILABLE_HINT } from "../errors/index.js";

export type Stripped =
  | { readonly kind: "stripped"; readonly code: string }
  | { readonly kind: "failed" }
  | { readonly kind: "unavailable"; readonly hint: string };

type Strip = (code: string) => string;

let stripper: Promise<Strip | undefined> | undefined;

export async function typeScriptStripped(code: string): Promise<Stripped> {
  stripper ??= findStripper();
  const strip = await stripper;
  if (!strip) return { kind: "unavailable", hint: TYPESCRIPT_UNAVAILABLE_HINT };
  try {
    return { kind: "stripped", code: strip(code) };
  } catch {
    return { kind: "failed" };
  }
}

async function findStripper(): Promise<Strip | undefined> {
  const nodeModule = (await import("node:module")) as { stripTypeScriptTypes?: (code: string) => string };
  if (typeof nodeModule.stripTypeScriptTypes === "function") {
    const strip = nodeModule.stripTypeScriptTypes;
    return (code) => strip(code);
  }
  try {
    // An optional helper, not a dependency: present in development installs and many hosts.
    const name = "typescript";
    const ts = ((await import(name)) as { default?: unknown }).default as {
      transpileModule(code: string, options: object): { outputText: string };
      ScriptTarget: { ES2022: number };
    };
    return (code) =>
      ts.transpileModule(code, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, removeComments: false },
        reportDiagnostics: false,
      }).outputText;
  } catch {
    return undefined;
  }
}
