import { basename } from "node:path";
import {
  adHocCommandMissing,
  adHocNamesMismatch,
  adHocNameTwice,
  adHocUrlInvalid,
  trailingBackslash,
  unbalancedQuote,
} from "./usage-errors.js";

/**
 * Servers given on the command line instead of (or besides) a config file: `--stdio "CMD ARGS"` and
 * `--http URL`, as users of other MCP CLIs expect for trying a server once.
 */

/**
 * Splits a command line into words as a POSIX shell would quote them, without a shell: no variables,
 * globs or operators, only quoting. `'...'` keeps everything literally; `"..."` keeps everything but
 * lets a backslash escape `"`, `\`, `$` and `` ` ``; outside quotes a backslash escapes any character.
 * An unbalanced quote or a trailing backslash is a usage error.
 */
export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === " " || char === "\t" || char === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else if (char === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw unbalancedQuote({ quote: "'", text });
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (char === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw unbalancedQuote({ quote: '"', text });
        const inner = text[i] as string;
        if (inner === '"') break;
        const next = text[i + 1];
        if (inner === "\\" && next !== undefined && '"\\$`'.includes(next)) {
          word += next;
          i += 2;
        } else {
          word += inner;
          i++;
        }
      }
      inWord = true;
      i++;
    } else if (char === "\\") {
      if (i + 1 >= text.length) throw trailingBackslash({ text });
      word += text[i + 1];
      inWord = true;
      i += 2;
    } else {
      word += char;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Launchers whose first non-option argument names the server better than the launcher does. */
const LAUNCHERS = new Set([
  "node",
  "npx",
  "bun",
  "bunx",
  "deno",
  "python",
  "python3",
  "uv",
  "uvx",
  "pnpm",
  "yarn",
]);

/** A server name from a command: the script or package a launcher runs, else the program. */
function nameOfCommand(words: readonly string[]): string {
  const program = basename(words[0] ?? "server");
  const subject = LAUNCHERS.has(program.replace(/\.exe$/, ""))
    ? words.slice(1).find((word) => !word.startsWith("-") && word !== "run" && word !== "dlx")
    : undefined;
  const base = basename(subject ?? program)
    .replace(/@[^@/]*$/, "") // a package version: pkg@1.2.3
    .replace(/\.(m?[jt]s|py|exe)$/, "");
  return base.replace(/^server-/, "") || "server";
}

function nameOfUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.port ? `${parsed.hostname}_${parsed.port}` : parsed.hostname;
  } catch {
    throw adHocUrlInvalid({ url });
  }
}

export interface AdHocFlags {
  readonly stdio?: readonly string[];
  readonly http?: readonly string[];
  /** Names for the servers, in order (stdio ones first); the rest are derived. */
  readonly name?: readonly string[];
}

/** The servers the flags describe, in `mcpServers` shape; undefined when there are none. */
export function adHocServers(flags: AdHocFlags): Record<string, Record<string, unknown>> | undefined {
  const entries: [string, Record<string, unknown>][] = [];
  for (const line of flags.stdio ?? []) {
    const words = splitCommandLine(line);
    if (words.length === 0) throw adHocCommandMissing();
    entries.push([nameOfCommand(words), { command: words[0], args: words.slice(1) }]);
  }
  for (const url of flags.http ?? []) entries.push([nameOfUrl(url), { type: "http", url }]);
  if (entries.length === 0) return undefined;
  const names = flags.name ?? [];
  if (names.length > entries.length)
    throw adHocNamesMismatch({ names: names.length, servers: entries.length });
  const servers: Record<string, Record<string, unknown>> = Object.create(null);
  entries.forEach(([derived, entry], index) => {
    let name = names[index] ?? derived;
    if (names[index] !== undefined && Object.hasOwn(servers, name)) throw adHocNameTwice({ name });
    for (let n = 2; Object.hasOwn(servers, name); n++) name = `${derived}_${n}`;
    servers[name] = entry;
  });
  return servers;
}
