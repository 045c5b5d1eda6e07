import { badCallArgument, unbalancedCallExpression } from "./usage-errors.js";

/**
 * mcporter's call syntax: `'server.tool(a: 1, b: "x")'`, a tool name with its arguments in
 * parentheses. Turned into the name and `key=value` pairs, so the arguments are converted by the
 * tool's schema exactly like pairs typed one by one. Pure.
 */

const CALL = /^([^\s(]+)\((.*)\)$/s;

/** Splits `text` at top-level commas: not inside quotes, brackets or braces. */
function topLevelItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") depth--;
    else if (char === "," && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quote || depth !== 0) throw unbalancedCallExpression({ text });
  items.push(text.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== "");
}

/** A value as written inside the parentheses, as the text of a `key=value` pair. */
function pairValue(raw: string): string {
  // 'single quoted' is a string; JSON's "double quoted" is passed as written (a quoted JSON string).
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'"))
    return JSON.stringify(raw.slice(1, -1).replace(/\\'/g, "'"));
  return raw;
}

/** `name(args)` -> the name and the arguments as pairs; anything else is returned unchanged. */
export function splitCallExpression(word: string): { name: string; pairs: string[] } {
  const match = CALL.exec(word.trim());
  if (!match) return { name: word, pairs: [] };
  const pairs = topLevelItems(match[2] as string).map((item) => {
    const at = /^([A-Za-z_$][\w$.-]*)\s*[:=]\s*/.exec(item);
    if (!at) throw badCallArgument({ tool: match[1] as string, item });
    return `${at[1]}=${pairValue(item.slice(at[0].length).trim())}`;
  });
  return { name: match[1] as string, pairs };
}
