import {
  applyEdits,
  createScanner,
  type FormattingOptions,
  findNodeAtLocation,
  modify,
  parseTree,
  SyntaxKind,
} from "jsonc-parser";
import { type ConfigError, notEditable as notEditableError } from "../errors/index.js";
import { smolToml } from "../util/lazy-modules.js";

/**
 * Adding and removing one server in a config file's text, keeping everything else as it was: the
 * comments, key order and formatting of JSON/JSONC (through jsonc-parser's edits) and of TOML (only
 * the server's own tables are written or cut; smol-toml writes the new table, never the file). Pure:
 * the caller reads, checks the result with the loader and writes.
 */

export type EditFormat = "json" | "toml";

export function editFormatOf(file: string): EditFormat {
  return file.endsWith(".toml") ? "toml" : "json";
}

/** JSON keys that hold servers, in the order they are used when a file has one of them. */
const JSON_KEYS = ["mcpServers", "servers"] as const;

function jsonFormatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? "  ";
  return {
    insertSpaces: !indent.startsWith("\t"),
    tabSize: indent.startsWith("\t") ? 1 : indent.length,
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

function jsonServersKey(text: string): string | undefined {
  const tree = parseTree(text);
  if (!tree) return undefined;
  return JSON_KEYS.find((key) => findNodeAtLocation(tree, [key])?.type === "object");
}

/**
 * Adds `"name": entry` after the last server of a non-empty servers object, on a line of its own with
 * that server's indentation, so nothing already written moves (jsonc-parser's own insertion reformats
 * the previous sibling and carries its trailing comment along). Undefined when the object is empty.
 */
function appendJsonProperty(text: string, key: string, name: string, entry: unknown): string | undefined {
  const tree = parseTree(text);
  const container = tree && findNodeAtLocation(tree, [key]);
  const last = container?.children?.at(-1);
  if (!container || !last || findNodeAtLocation(container, [name]) !== undefined) return undefined;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const valueEnd = last.offset + last.length;
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "  ";
  const formatting = jsonFormatting(text);
  const unit = formatting.insertSpaces ? " ".repeat(formatting.tabSize ?? 2) : "\t";
  // After the value's line when only a comment follows it there, so the comment stays where it was.
  const newline = text.indexOf("\n", valueEnd);
  const restOfLine = text.slice(valueEnd, newline < 0 ? text.length : newline).replace(/\r$/, "");
  const at =
    /^\s*(\/\/.*)?$/.test(restOfLine) && newline >= 0
      ? newline - (text[newline - 1] === "\r" ? 1 : 0)
      : valueEnd;
  const body = JSON.stringify(entry, null, unit).replaceAll("\n", `${eol}${indent}`);
  const property = `${eol}${indent}${JSON.stringify(name)}: ${body}`;
  return `${text.slice(0, valueEnd)},${text.slice(valueEnd, at)}${property}${text.slice(at)}`;
}

/** The text with `name` set to `entry`; `replace` allows overwriting a server of that name. */
export function addServer(
  text: string,
  format: EditFormat,
  name: string,
  entry: Record<string, unknown>,
): string {
  if (format === "json") {
    const source = text.trim() === "" ? "{}\n" : text;
    const key = jsonServersKey(source) ?? "mcpServers";
    return (
      appendJsonProperty(source, key, name, entry) ??
      applyEdits(source, modify(source, [key, name], entry, { formattingOptions: jsonFormatting(source) }))
    );
  }
  const prefix = tomlServersPrefix(text);
  if (prefix === "[[mcp.servers]]") {
    const table = smolToml().stringify({ mcp: { servers: [{ name, ...entry }] } });
    return appendBlock(text, table);
  }
  const [first, second] = prefix.split(".") as [string, string | undefined];
  const table = smolToml().stringify(
    second ? { [first]: { [second]: { [name]: entry } } } : { [first]: { [name]: entry } },
  );
  // smol-toml writes the parent tables' headers too when they hold nothing else; they are left out.
  return appendBlock(text, table.replace(/^\[(mcp_servers|mcp|mcp\.servers)\]\n+/gm, ""));
}

/** The offset of the first `,` token in text[from, to), comments skipped; -1 when there is none. */
function commaBetween(text: string, from: number, to: number): number {
  const scanner = createScanner(text.slice(from, to), false);
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan())
    if (kind === SyntaxKind.CommaToken) return from + scanner.getTokenOffset();
  return -1;
}

/**
 * Cuts one property with its separating comma, the whole-line comments right above it and its line
 * break, touching nothing else (jsonc-parser's own removal reformats the neighbours).
 */
function removeJsonProperty(text: string, key: string, name: string): string | undefined {
  const tree = parseTree(text);
  const container = tree && findNodeAtLocation(tree, [key]);
  const properties = container?.children ?? [];
  const index = properties.findIndex((property) => property.children?.[0]?.value === name);
  const target = properties[index];
  if (!target) return undefined;
  const previous = properties[index - 1];
  const next = properties[index + 1];
  const end = target.offset + target.length;
  const cuts: [number, number][] = [];
  if (previous) {
    const comma = commaBetween(text, previous.offset + previous.length, target.offset);
    if (comma >= 0) cuts.push([comma, comma + 1]);
  } else if (next) {
    const comma = commaBetween(text, end, next.offset);
    if (comma >= 0) cuts.push([comma, comma + 1]);
  }
  let start = target.offset;
  let lineStart = text.lastIndexOf("\n", start - 1) + 1;
  if (/^[ \t]*$/.test(text.slice(lineStart, start))) {
    // Whole-line comments just above the property describe it: they go with it.
    while (lineStart > 0) {
      const above = text.lastIndexOf("\n", lineStart - 2) + 1;
      if (!/^[ \t]*\/\/[^\n]*\n$/.test(text.slice(above, lineStart))) break;
      lineStart = above;
    }
    start = lineStart > 0 ? lineStart - (text[lineStart - 2] === "\r" ? 2 : 1) : 0;
  }
  cuts.push([start, end]);
  cuts.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [from, to] of cuts) out = out.slice(0, from) + out.slice(to);
  return out;
}

/** The text without server `name`; undefined when the file does not define it (in a form we edit). */
export function removeServer(text: string, format: EditFormat, name: string): string | undefined {
  if (format === "json") {
    const tree = parseTree(text);
    const key = tree && JSON_KEYS.find((k) => findNodeAtLocation(tree, [k, name]) !== undefined);
    if (!key) return undefined;
    return removeJsonProperty(text, key, name);
  }
  return removeTomlServer(text, name);
}

/** Which TOML form the file already uses for servers (Codex's when it uses none). */
function tomlServersPrefix(text: string): "mcp_servers" | "mcp.servers" | "[[mcp.servers]]" {
  if (/^\s*\[mcp_servers[.\]]/m.test(text)) return "mcp_servers";
  if (/^\s*\[\[\s*mcp\.servers\s*\]\]/m.test(text)) return "[[mcp.servers]]";
  if (/^\s*\[mcp\.servers[.\]]/m.test(text)) return "mcp.servers";
  return "mcp_servers";
}

function appendBlock(text: string, block: string): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const body = block.trim().replaceAll("\n", eol);
  if (text.trim() === "") return `${body}${eol}`;
  return `${text.replace(/\s*$/, "")}${eol}${eol}${body}${eol}`;
}

/** A TOML table header line: its dotted key parts (quotes removed), and whether it is an array table. */
function headerOf(line: string): { parts: string[]; array: boolean } | undefined {
  const match = /^\s*(\[\[?)\s*(.+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  if (!match) return undefined;
  const parts: string[] = [];
  const key = match[2] as string;
  const part = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/y;
  let index = 0;
  while (index < key.length) {
    part.lastIndex = index;
    const found = part.exec(key);
    if (!found) return undefined;
    const raw = found[1] as string;
    parts.push(
      raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.startsWith("'") ? raw.slice(1, -1) : raw,
    );
    index = part.lastIndex;
  }
  return { parts, array: match[1] === "[[" };
}

/** `[mcp.servers.env]`, `[[mcp.servers.tools]]`, ...: a sub-table of the `[[mcp.servers]]` entry above it. */
function isArrayEntrySubTable(parts: readonly string[]): boolean {
  return parts.length > 2 && parts[0] === "mcp" && parts[1] === "servers";
}

function removeTomlServer(text: string, name: string): string | undefined {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = text.split(/\r?\n/);
  const headers = lines.map(headerOf);
  // In a file of `[[mcp.servers]]` entries, `[mcp.servers.X]` is a sub-table of an entry, not server X.
  const arrayForm = headers.some((header) => header?.array && header.parts.join(".") === "mcp.servers");
  const isServerTable = (parts: string[]) =>
    (parts[0] === "mcp_servers" && parts[1] === name) ||
    (!arrayForm && parts[0] === "mcp" && parts[1] === "servers" && parts[2] === name);
  const namePattern = new RegExp(`^\\s*name\\s*=\\s*(["'])${escapeRegex(name)}\\1\\s*(#.*)?$`);
  const keep: boolean[] = lines.map(() => true);
  let found = false;
  let dropping = false;
  // The open `[[mcp.servers]]` entry: where it starts, and where its own keys end (its first sub-table).
  let arrayStart = -1;
  let ownEnd = -1;
  for (let i = 0; i <= lines.length; i++) {
    const header = i < lines.length ? headers[i] : { parts: [], array: false };
    if (header) {
      if (arrayStart >= 0 && isArrayEntrySubTable(header.parts)) {
        // The entry goes on: its sub-tables (env, headers, ...) are cut or kept with it.
        if (ownEnd < 0) ownEnd = i;
        continue;
      }
      // An `[[mcp.servers]]` entry ends here: drop it, sub-tables included, if its own `name` was the one.
      if (arrayStart >= 0) {
        const own = lines.slice(arrayStart, ownEnd < 0 ? i : ownEnd);
        if (own.some((line) => namePattern.test(line))) {
          for (let j = arrayStart; j < i; j++) keep[j] = false;
          for (let j = i - 1; j > arrayStart && /^\s*#/.test(lines[j] as string); j--) keep[j] = true;
          found = true;
        }
        arrayStart = -1;
        ownEnd = -1;
      }
      if (i === lines.length) break;
      // Comments just above the next table belong to it, not to the table being cut.
      if (dropping) for (let j = i - 1; j >= 0 && /^\s*#/.test(lines[j] as string); j--) keep[j] = true;
      dropping = !header.array && isServerTable(header.parts);
      if (header.array && header.parts.join(".") === "mcp.servers") arrayStart = i;
      if (dropping) found = true;
    }
    if (dropping) keep[i] = false;
  }
  if (!found) return undefined;
  const kept = lines.filter((_, i) => keep[i]);
  return `${kept
    .join(eol)
    .replace(/(\r?\n){3,}/g, `${eol}${eol}`)
    .replace(/\s*$/, "")}${eol}`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** @deprecated The CLI's edit commands move to the factory `notEditable({ file, reason })` of errors/. */
export function notEditable(file: string, reason: string): ConfigError {
  return notEditableError({ file, reason });
}
