import { createHash } from "node:crypto";

/** The strictest LLM vendor limit (OpenAI and Anthropic): what every exposed name must match. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;
/** Hex digits of the suffix given to long or colliding names; longer only to break a hash clash. */
export const NAME_HASH_LENGTH = 6;
/** Hex digits that stand in for the characters of a name part no ASCII spelling exists for. */
export const PART_HASH_LENGTH = 4;
/**
 * When a name is too long the server part is shortened first, but never below this many characters
 * (when it has that many): enough to tell `github` from `gitlab`, while the tool part keeps the rest.
 */
export const MIN_SERVER_PART_LENGTH = 8;

/**
 * One name part made safe for every vendor: each code point outside `[A-Za-z0-9_-]` becomes `_`.
 * Code points, not UTF-16 units, so `🔧` is one `_` whatever its encoding. Used for the format's own
 * text; server and tool names go through `readablePart` first.
 */
export function normalizeNamePart(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/gu, "_");
}

/**
 * A name part spelled in ASCII. Accented Latin letters lose their accents (`café` → `cafe`, via NFKD,
 * which also maps full-width forms). A name with characters that have no ASCII spelling (`服务器`,
 * `🔧x`) keeps its ASCII letters and digits and gets a short hash of the whole original name, so it
 * stays readable where it can, stable across runs, and two such names do not all become `___`.
 */
export function readablePart(part: string): string {
  const ascii = part.normalize("NFKD").replace(/\p{M}/gu, "");
  // Punctuation and spaces have an obvious stand-in (`_`); only letters and symbols outside ASCII are
  // lost. A non-ASCII name whose ASCII rendition keeps no letter or digit (`≮` is `<` plus a mark)
  // would become underscores only: it gets the hash too.
  const spelled = /[A-Za-z0-9]/.test(ascii) || !/[^\p{ASCII}]/u.test(part);
  if (!/[^\p{ASCII}]/u.test(ascii) && spelled) return normalizeNamePart(ascii);
  const kept = normalizeNamePart(ascii.replace(/[-_\s]*[^\p{ASCII}]+[-_\s]*/gu, "_"))
    .replace(/_{2,}/g, "_")
    .replace(/^_|_$/g, "");
  const hash = createHash("sha256").update(part).digest("hex").slice(0, PART_HASH_LENGTH);
  return kept.length > 0 ? `${kept}_${hash}` : `u${hash}`;
}

/** Server part: identifier-safe as well, so `web-search` becomes `web_search`. */
export function normalizeServerPart(server: string): string {
  return readablePart(server).replaceAll("-", "_");
}

/** Tool part: vendors accept `-`, so it stays. */
export function normalizeToolPart(tool: string): string {
  return readablePart(tool);
}

function fill(format: string, serverPart: string, toolPart: string): string {
  // Function replacements: a name may contain `$&` and the like.
  return normalizeNamePart(
    format.replaceAll("{server}", () => serverPart).replaceAll("{tool}", () => toolPart),
  );
}

/**
 * The exposed name before collision handling: the format with both parts normalized. May be longer
 * than 64 characters; the registry (or `formatToolName`) shortens it.
 */
export function baseToolName(format: string, server: string, tool: string): string {
  const name = fill(format, normalizeServerPart(server), normalizeToolPart(tool));
  return name.length > 0 ? name : "_";
}

/** A short hash of the ORIGINAL names: stable across runs, start orders and machines. */
export function nameHash(server: string, tool: string, length = NAME_HASH_LENGTH): string {
  return createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, length);
}

function occurrences(format: string, placeholder: string): number {
  return format.split(placeholder).length - 1;
}

/**
 * The name with `_<hash>` appended, shortened to fit 64 characters. The server part is cut first
 * (down to `MIN_SERVER_PART_LENGTH`), then the tool part, so a long server name never squeezes the
 * tool to a letter; the format's own text is cut last. The hash is of the original names, so the
 * result identifies the tool even when both parts are cut.
 */
export function suffixedName(
  format: string,
  server: string,
  tool: string,
  hashLength = NAME_HASH_LENGTH,
): string {
  const suffix = `_${nameHash(server, tool, hashLength)}`;
  let serverPart = normalizeServerPart(server);
  let toolPart = normalizeToolPart(tool);
  const servers = occurrences(format, "{server}");
  const tools = occurrences(format, "{tool}");
  const fixed = fill(format, "", "").length;
  const budget = MAX_TOOL_NAME_LENGTH - suffix.length - fixed;
  if (servers * serverPart.length + tools * toolPart.length > budget) {
    const serverFloor = servers === 0 ? 0 : Math.min(serverPart.length, MIN_SERVER_PART_LENGTH);
    if (tools > 0) {
      const toolRoom = Math.floor(Math.max(0, budget - servers * serverFloor) / tools);
      toolPart = toolPart.slice(0, toolRoom);
    }
    if (servers > 0) {
      const serverRoom = Math.floor(Math.max(0, budget - tools * toolPart.length) / servers);
      serverPart = serverPart.slice(0, serverRoom);
    }
  }
  return fill(format, serverPart, toolPart).slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/**
 * The exposed name of one tool taken alone: always matches `TOOL_NAME_PATTERN`, and a name over 64
 * characters is shortened and given the hash suffix. Collisions between tools are the registry's job.
 */
export function formatToolName(format: string, server: string, tool: string): string {
  const base = baseToolName(format, server, tool);
  return base.length > MAX_TOOL_NAME_LENGTH ? suffixedName(format, server, tool) : base;
}
