import type { CliIO } from "./cli-io.js";

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const plain: Style = { bold: (t) => t, dim: (t) => t, red: (t) => t, green: (t) => t, yellow: (t) => t };
const ansi = (code: number, reset: number) => (text: string) => `\u001b[${code}m${text}\u001b[${reset}m`;
const colored: Style = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  red: ansi(31, 39),
  green: ansi(32, 39),
  yellow: ansi(33, 39),
};

/** Colors only on a terminal, never with NO_COLOR or --no-color. */
export function styleFor(stream: { isTTY?: boolean }, env: CliIO["env"], color?: boolean): Style {
  if (color === false || env.NO_COLOR !== undefined || env.TERM === "dumb") return plain;
  return stream.isTTY ? colored : plain;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape codes is the point.
const ANSI_PATTERN = /\u001b\[[0-9;]*m/g;
const visibleLength = (text: string) => text.replace(ANSI_PATTERN, "").length;

/** A plain aligned table; the last column is never padded. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  style: Style,
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => visibleLength(row[column] ?? ""))),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell + " ".repeat((widths[column] ?? 0) - visibleLength(cell)),
      )
      .join("  ")
      .trimEnd();
  return [style.bold(line(headers)), ...rows.map(line)].join("\n");
}

export function shorten(text: string, max: number): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length <= max ? single : `${single.slice(0, max - 1)}…`;
}

export function writeJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
