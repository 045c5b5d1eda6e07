/**
 * Valid, unique JavaScript identifiers for server and tool names, so a program can write
 * `tools.github.create_issue(...)` instead of `tools["git-hub"]["create.issue"](...)`. The mapping is
 * deterministic: names are taken in sorted order and a clash gets `_2`, `_3`... by that order, so the
 * same catalog always yields the same API whatever order the servers listed their tools in.
 */

/** Words a binding name or a dotted member should not be (reserved in strict mode, or confusing). */
const RESERVED = new Set([
  "arguments",
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "constructor",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "eval",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "implements",
  "import",
  "in",
  "instanceof",
  "interface",
  "let",
  "new",
  "null",
  "package",
  "private",
  "protected",
  "prototype",
  "public",
  "return",
  "static",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  "__proto__",
  "hasOwnProperty",
  "toString",
  "valueOf",
]);

/** One name as an identifier: every other character becomes `_`, a leading digit or reserved word gets `_`. */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_$]/g, "_").slice(0, 64);
  if (id === "" || /^[0-9]/.test(id) || RESERVED.has(id)) id = `_${id}`;
  return id;
}

/**
 * Identifiers for a set of names, unique among themselves: `names` in any order, the result keyed by
 * original name. Sorting first makes the suffixes independent of the input order.
 */
export function uniqueIdentifiers(names: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(names)].sort();
  const taken = new Set<string>();
  const result = new Map<string, string>();
  for (const name of sorted) {
    const base = toIdentifier(name);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    result.set(name, id);
  }
  return result;
}
