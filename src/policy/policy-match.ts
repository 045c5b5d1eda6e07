import type { PolicyArgumentMatch, PolicyRule } from "../config/policy-settings.js";
import { re2js } from "../util/lazy-modules.js";

/**
 * What one rule tests, compiled once per policy: globs and RE2 patterns become matchers, JSON paths
 * become key lists. Every test is pure and linear in its input (globs through an escaped RegExp with
 * no nested quantifiers, argument regexes through RE2).
 */

/** The facts a rule is matched against: the canonical server and tool, never the caller's spelling. */
export interface CallFacts {
  readonly server: string;
  readonly tool: string;
  readonly annotations: Readonly<Record<string, unknown>> | undefined;
  readonly args: Readonly<Record<string, unknown>>;
  /** A gateway client's identity; `""` for a local caller. */
  readonly caller: string;
}

export type Matcher = (facts: CallFacts) => boolean;

/**
 * MCP's defaults for undeclared hints: a tool that does not say it only reads may change things, and
 * one that may change things may destroy them. A server that leaves a hint out does not escape a rule
 * on it.
 */
export function annotationValue(annotations: CallFacts["annotations"], hint: string): unknown {
  const declared = annotations?.[hint];
  if (declared !== undefined) return declared;
  const readOnly = annotations?.readOnlyHint === true;
  switch (hint) {
    case "readOnlyHint":
      return false;
    case "destructiveHint":
      return !readOnly;
    case "idempotentHint":
      return false;
    case "openWorldHint":
      return true;
    default:
      return undefined;
  }
}

/**
 * A glob as a whole-text test: `*` is any run of characters (also `/`), `?` one character; the rest is
 * literal. Names are compared without case when `foldCase` (a server's `Delete_File` is the same door
 * as `delete_file`).
 */
export function globTest(glob: string, foldCase: boolean): (text: string) => boolean {
  if (glob === "*") return () => true;
  if (!/[*?]/.test(glob)) {
    const literal = foldCase ? glob.toLowerCase() : glob;
    return foldCase ? (text) => text.toLowerCase() === literal : (text) => text === literal;
  }
  const source = [...glob]
    .map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")))
    .join("")
    .replace(/(\.\*)+/g, ".*");
  const regexp = new RegExp(`^${source}$`, foldCase ? "isu" : "su");
  return (text) => regexp.test(text);
}

/** `$.a.b`, `$.a[0]`, `$.a[*]`, `$.*`, `$["a b"]` as keys; `*` is every element or property. */
export function parsePath(path: string): (string | number)[] {
  const keys: (string | number)[] = [];
  const pattern = /\.([^.[\]]+)|\[(\d+)\]|\[\*\]|\[("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\]/gy;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const start = pattern.lastIndex;
    const match = pattern.exec(path);
    if (!match || match.index !== start) {
      // Not a path we can read: the rest is one key, so the rule matches nothing rather than everything.
      keys.push(path.slice(start));
      break;
    }
    if (match[1] !== undefined) keys.push(match[1]);
    else if (match[2] !== undefined) keys.push(Number(match[2]));
    else if (match[3] !== undefined) {
      const quoted = match[3];
      keys.push(quoted.startsWith('"') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1));
    } else keys.push("*");
  }
  return keys;
}

/** Every value at `keys` inside `value` (several when a key is `*`). */
export function valuesAt(value: unknown, keys: readonly (string | number)[], from = 0): unknown[] {
  if (from === keys.length) return [value];
  if (value === null || typeof value !== "object") return [];
  const key = keys[from] as string | number;
  if (key === "*") {
    const items = Array.isArray(value) ? value : Object.values(value);
    return items.flatMap((item) => valuesAt(item, keys, from + 1));
  }
  if (!Object.hasOwn(value, key)) return [];
  return valuesAt((value as Record<string | number, unknown>)[key], keys, from + 1);
}

/** A value as the text a glob or regex sees: strings as they are, numbers and booleans as written, anything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

function argumentTest(match: PolicyArgumentMatch): Matcher {
  const keys = parsePath(match.path);
  let test: (text: string) => boolean = () => true;
  if (match.glob !== undefined) test = globTest(match.glob, false);
  else if (match.regex !== undefined) {
    const pattern = re2js().compile(match.regex);
    test = (text) => pattern.matcher(text).find();
  }
  // Any value at the path matching is enough (`$.files[*]` with one forbidden file among many).
  return (facts) => valuesAt(facts.args, keys).some((value) => test(valueText(value)));
}

/** One rule's conditions as a single test; a rule with none matches every call. */
export function ruleMatcher(rule: PolicyRule): Matcher {
  const tests: Matcher[] = [];
  if (rule.server !== undefined) {
    const test = globTest(rule.server, true);
    tests.push((facts) => test(facts.server));
  }
  if (rule.tool !== undefined) {
    const test = globTest(rule.tool, true);
    tests.push((facts) => test(facts.tool));
  }
  if (rule.caller !== undefined) {
    const test = globTest(rule.caller, false);
    tests.push((facts) => test(facts.caller));
  }
  for (const [hint, wanted] of Object.entries(rule.annotations ?? {})) {
    tests.push((facts) => annotationValue(facts.annotations, hint) === wanted);
  }
  for (const match of rule.args ?? []) tests.push(argumentTest(match));
  return (facts) => tests.every((test) => test(facts));
}
