import type { Style } from "../output.js";

/**
 * The model's markdown as a terminal shows it, one complete line at a time (the chat streams it):
 * headings and **bold** in bold, `code` and fenced code blocks dimmed, list markers as bullets, and
 * tables drawn with aligned columns once their last row is in. Takes text already made safe for a
 * terminal (terminalText) and adds only the style's own sequences.
 */
export class MarkdownLines {
  readonly #style: Style;
  #inCode = false;
  #table: string[][] = [];

  constructor(style: Style) {
    this.#style = style;
  }

  /** The rendered text for one source line (possibly several lines, or none while a table grows). */
  line(source: string): string[] {
    const style = this.#style;
    if (/^\s*(```|~~~)/.test(source)) {
      this.#inCode = !this.#inCode;
      return [...this.flush(), style.dim(this.#inCode ? "┌──" : "└──")];
    }
    if (this.#inCode) return [style.dim(`│ ${source}`)];
    if (/^\s*\|.*\|\s*$/.test(source)) {
      const cells = source
        .trim()
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim());
      this.#table.push(cells);
      return [];
    }
    const out = this.flush();
    const heading = /^(#{1,6})\s+(.*)$/.exec(source);
    if (heading) out.push(style.bold(this.#inline(heading[2] ?? "")));
    else {
      const item = /^(\s*)[-*+]\s+(.*)$/.exec(source);
      out.push(item ? `${item[1]}• ${this.#inline(item[2] ?? "")}` : this.#inline(source));
    }
    return out;
  }

  /** A table still being collected, drawn now (its last row came, or the reply ended). */
  flush(): string[] {
    const rows = this.#table;
    this.#table = [];
    if (rows.length === 0) return [];
    const isRule = (row: string[]) => row.every((cell) => /^:?-{1,}:?$/.test(cell));
    const body = rows.map((row) => (isRule(row) ? undefined : row.map((cell) => this.#inline(cell))));
    const columns = Math.max(...rows.map((row) => row.length));
    const widths = Array.from({ length: columns }, (_, i) =>
      Math.max(...body.map((row) => visibleLength(row?.[i] ?? ""))),
    );
    return body.map((row, index) => {
      if (!row) return this.#style.dim(widths.map((w) => "─".repeat(w)).join("─┼─"));
      const text = widths.map((w, i) => pad(row[i] ?? "", w)).join(this.#style.dim(" │ "));
      return index === 0 && body[1] === undefined ? this.#style.bold(text) : text;
    });
  }

  #inline(text: string): string {
    const style = this.#style;
    return text
      .replace(/`([^`]+)`/g, (_, code: string) => style.dim(code))
      .replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_, a?: string, b?: string) => style.bold(a ?? b ?? ""));
  }
}

function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the style's own SGR sequences take no room.
  return [...text.replace(/\u001b\[[0-9;]*m/g, "")].length;
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - visibleLength(text)));
}
