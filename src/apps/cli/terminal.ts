/**
 * Terminal safety. Text from servers (descriptions, results, errors, stderr lines) and from models
 * may carry escape sequences that clear the screen, set the window title, write the clipboard
 * (OSC 52) or redraw lines to spoof output. Two layers keep them off the person's terminal:
 * `terminalText` strips every control character from such text where the CLI shows it, and
 * `guardTerminal` filters everything written to a terminal stream, letting through only the few
 * sequences the CLI itself writes (colors, line erase, cursor moves of line editing).
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Foreign text made safe for a terminal: no control characters (ESC, CR, BEL, C1, bidi overrides); newlines and tabs kept. */
export function terminalText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "");
}

/**
 * The sequences the CLI writes itself: SGR colors (`CSI ... m`), erase in line (`CSI n K`), erase
 * below (`CSI 0 J`), and the cursor moves readline uses while editing a line (`CSI n A/B/C/D/G`).
 * Anything else starting with ESC (OSC titles and clipboard writes, screen clears, DCS, ...) and
 * every other control character except newline, tab and carriage return is dropped.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point.
const ALLOWED_CSI = /^\u001b\[[0-9;]*[mKABCDG]|^\u001b\[0?J/;
const ANY_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point.
  /^\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[PX^_][^\u001b]*(?:\u001b\\)?|[@-Z\\-_]|.)?/s;

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const STRAY_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function filterTerminalOutput(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf("\u001b", i);
    const end = at === -1 ? text.length : at;
    out += text.slice(i, end).replace(STRAY_CONTROL, "");
    if (at === -1) break;
    const rest = text.slice(at, at + 4096);
    const allowed = ALLOWED_CSI.exec(rest);
    if (allowed) {
      out += allowed[0];
      i = at + allowed[0].length;
      continue;
    }
    const skipped = ANY_ESCAPE.exec(rest);
    i = at + Math.max(1, skipped?.[0].length ?? 1);
  }
  return out;
}

/** Filters every write to a terminal stream (a no-op for pipes and files, whose bytes stay exact). */
export function guardTerminal<S extends NodeJS.WritableStream & { isTTY?: boolean }>(stream: S): S {
  if (!stream.isTTY) return stream;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  (stream as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === "string" ? filterTerminalOutput(chunk) : chunk, ...rest);
  return stream;
}
