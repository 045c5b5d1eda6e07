import { basename, dirname } from "node:path";
import { configNotObject, configSyntax } from "../errors/index.js";
import { smolToml } from "../util/lazy-modules.js";
import { type DocumentContext, normalizeDocument, type ParsedConfig } from "./document.js";

export { normalizeDocument, type ParsedConfig } from "./document.js";

type Raw = Record<string, unknown>;

/** Parses config text (JSON or TOML, by extension, else by content); errors name file, line and column. */
export function parseConfigText(
  text: string,
  file: string,
  context: Omit<DocumentContext, "configDir" | "workspaceFolder" | "file">,
): ParsedConfig {
  return normalizeFile(parseDocument(text, file), file, context);
}

/** Normalizes a parsed file: `${configDir}` and `${workspaceFolder}` come from where it lies. */
export function normalizeFile(
  data: Raw,
  file: string,
  context: Omit<DocumentContext, "configDir" | "workspaceFolder" | "file">,
): ParsedConfig {
  const configDir = dirname(file);
  // VS Code's `.vscode/mcp.json` and Cursor's `.cursor/mcp.json` belong to the folder above.
  const workspaceFolder = /^\.(vscode|cursor|codex)$/.test(basename(configDir))
    ? dirname(configDir)
    : configDir;
  return normalizeDocument(data, { ...context, file, configDir, workspaceFolder });
}

export function parseDocument(text: string, file: string): Raw {
  const toml = /\.toml$/i.test(file) || (!/\.json$/i.test(file) && !/^\s*[{[]/.test(text));
  if (toml) {
    try {
      return smolToml().parse(text) as Raw;
    } catch (error) {
      if (error instanceof smolToml().TomlError) {
        const { line, column } = error;
        // The first line only, and no cause: the parser's message goes on with a frame of the file's
        // text, which may hold a secret.
        const detail = error.message.split("\n")[0] ?? "";
        throw configSyntax({ file, format: "TOML", line, column, detail });
      }
      throw error;
    }
  }
  try {
    const data: unknown = parseJsonc(text);
    if (!data || typeof data !== "object" || Array.isArray(data)) {
      throw configNotObject({ file });
    }
    return data as Raw;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    const { line, column } = positionOf(text, error.message);
    throw configSyntax({ file, format: "JSON", line, column, detail: jsonComplaint(error.message) });
  }
}

/**
 * Plain JSON first: a valid JSON file has nothing to strip (a `/` lies only inside strings, a trailing
 * comma is invalid), so most files, however big, cost one native parse. Only a file that fails is read
 * as JSON with comments, and a syntax error then comes from that second parse.
 */
function parseJsonc(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return JSON.parse(stripJsonComments(text));
  }
}

/**
 * The JSON parser's complaint without the excerpt of the file it quotes (Node 20+ writes
 * `Unexpected token 's', "{"a": supersecre"... is not valid JSON`): the file may hold a secret there.
 * The line and column say where; no cause is kept, for the same reason.
 */
export function jsonComplaint(message: string): string {
  return message
    .replace(/ in JSON at position \d+.*$/s, "")
    .replace(/,? ?(\.\.\.)?"[\s\S]*$/, "")
    .trim();
}

/**
 * JSON with comments and trailing commas, as VS Code and Cursor write their config files. Strings are
 * left alone; comments and trailing commas become spaces so error positions still point at the original
 * text. The text is copied in runs between the spots changed, never a character at a time: appending
 * one character per step to a 10 MB string builds millions of linked pieces the garbage collector must
 * walk on every pass, which made a big file take seconds.
 */
function stripJsonComments(text: string): string {
  return removeTrailingCommas(blankOut(text, commentsIn(text)));
}

/** A span `[from, to)` of the text to replace with spaces (keeping its line breaks). */
type Span = readonly [from: number, to: number];

const QUOTE = 34;
const BACKSLASH = 92;
const SLASH = 47;
const STAR = 42;
const COMMA = 44;
const CLOSERS = new Set(["}", "]"]);

/** The end (after the closing quote) of the string that starts at `start`. */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i += 2;
    else if (code === QUOTE) return i + 1;
    else i++;
  }
  return text.length;
}

function commentsIn(text: string): Span[] {
  const spans: Span[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code === QUOTE) i = endOfString(text, i);
    else if (code === SLASH && next === SLASH) {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      spans.push([i, stop]);
      i = stop;
    } else if (code === SLASH && next === STAR) {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      spans.push([i, stop]);
      i = stop;
    } else i++;
  }
  return spans;
}

/** Drops commas that close a list or object (outside strings), keeping every other character's position. */
function removeTrailingCommas(text: string): string {
  const spans: Span[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = endOfString(text, i);
      continue;
    }
    if (code === COMMA) {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      if (CLOSERS.has(text[j] as string)) spans.push([i, i + 1]);
    }
    i++;
  }
  return blankOut(text, spans);
}

/** The text with each span (in order, not overlapping) turned into spaces, line breaks kept. */
function blankOut(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let copied = 0;
  for (const [from, to] of spans) {
    parts.push(text.slice(copied, from), text.slice(from, to).replace(/[^\n]/g, " "));
    copied = to;
  }
  parts.push(text.slice(copied));
  return parts.join("");
}

function positionOf(text: string, message: string): { line: number; column: number } {
  const explicit = /line (\d+) column (\d+)/.exec(message);
  if (explicit) return { line: Number(explicit[1]), column: Number(explicit[2]) };
  const position = /position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : firstBadOffset(text);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * Some V8 versions (Node 20) omit the position for "Unexpected token" errors. A prefix of valid JSON
 * fails only with "unexpected end", so the shortest prefix failing otherwise ends at the bad token.
 */
function firstBadOffset(text: string): number {
  const failsBeforeEnd = (length: number): boolean => {
    const prefix = text.slice(0, length);
    try {
      JSON.parse(prefix);
      return false;
    } catch (error) {
      const message = (error as Error).message;
      const at = /position (\d+)/.exec(message);
      return !/end of JSON input/.test(message) && !(at && Number(at[1]) >= prefix.length);
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (failsBeforeEnd(middle)) high = middle;
    else low = middle + 1;
  }
  return Math.max(0, low - 1);
}
