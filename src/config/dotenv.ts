/**
 * Parses a `.env` file as VS Code's `envFile` reads it: `KEY=value` lines, `#` comments, an optional
 * `export ` prefix, values in single quotes (literal) or double quotes (`\n` escapes). Nothing is
 * expanded and nothing is executed.
 */
export function parseDotenv(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1] as string;
    let value = (match[2] as string).trim();
    const quote = value[0];
    const close = quote === '"' || quote === "'" ? value.indexOf(quote, 1) : -1;
    if (close > 0) {
      value = value.slice(1, close);
      if (quote === '"') value = value.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1");
    } else value = value.replace(/\s+#.*$/, "");
    result[key] = value;
  }
  return result;
}
