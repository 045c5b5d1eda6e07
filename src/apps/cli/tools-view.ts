import type { Envelope } from "../daemon/protocol.js";
import type { CommandContext } from "./command-context.js";
import { shorten, table, writeJson } from "./output.js";
import { parameterRows } from "./schema-view.js";
import { terminalText } from "./terminal.js";

/**
 * How `tools` prints: one tool in full (`tools NAME`), or the table of all of them fitted to the
 * terminal's width, so no row wraps onto a second line: the description and parameter columns are
 * shortened (with …) to the room left after the names; `tools NAME` and `--json` have them whole.
 */

export interface ToolDoc {
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: unknown;
}

/** The width to fit: the terminal's, else $COLUMNS, else 80 on a terminal; a pipe gets whole lines. */
export function outputWidth(context: CommandContext): number | undefined {
  const stdout = context.io.stdout as { isTTY?: boolean; columns?: number };
  if (stdout.isTTY && stdout.columns && stdout.columns > 0) return stdout.columns;
  const fromEnv = Number(context.io.env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return stdout.isTTY ? 80 : undefined;
}

/**
 * The description without the `[MCP:server] ` prefix the LLM sees, for views that already say which
 * server a tool is from (a SERVER column, a heading, `server/tool`).
 */
export function ownDescription(tool: { readonly server: string; readonly description: string }): string {
  const prefix = `[MCP:${tool.server}]`;
  return tool.description.startsWith(prefix)
    ? tool.description.slice(prefix.length).trimStart()
    : tool.description;
}

/** A parameter list as `a: number, b?: string` (a union shown whole). */
export function signatureOf(inputSchema: unknown): string {
  return parameterRows(inputSchema)
    .map((p) => `${terminalText(p.name)}${p.required ? "" : "?"}: ${terminalText(p.type)}`)
    .join(", ");
}

const GAP = 2;
const MIN_DESCRIPTION = 12;

function renderTable(
  context: CommandContext,
  tools: readonly ToolDoc[],
  complete: readonly boolean[],
): string {
  const rows = tools.map((t, index) => {
    const params = signatureOf(t.inputSchema);
    return {
      name: terminalText(t.name),
      server: terminalText(t.server),
      description: shorten(terminalText(ownDescription(t)), 200),
      params: (complete[index] ?? true) ? params : `${params} (+schema)`,
    };
  });
  const widest = (pick: (row: (typeof rows)[number]) => string, header: string) =>
    Math.max(header.length, ...rows.map((row) => pick(row).length));
  const width = outputWidth(context) ?? Number.POSITIVE_INFINITY;
  const room = width - widest((r) => r.name, "NAME") - widest((r) => r.server, "SERVER") - 3 * GAP - 1;
  const paramsWidth = widest((r) => r.params, "PARAMETERS");
  const descriptionWidth = widest((r) => r.description, "DESCRIPTION");
  // Parameters first (they are what a call needs), up to 60% of the room when both do not fit.
  let params = Math.min(
    paramsWidth,
    paramsWidth + descriptionWidth <= room ? paramsWidth : Math.floor(room * 0.6),
  );
  let description = Math.min(descriptionWidth, room - params);
  if (description < MIN_DESCRIPTION) {
    description = 0;
    params = Math.min(paramsWidth, room + GAP);
  }
  const cut = (text: string, max: number) => (text.length <= max ? text : shorten(text, Math.max(max, 1)));
  const headers =
    description > 0 ? ["NAME", "SERVER", "PARAMETERS", "DESCRIPTION"] : ["NAME", "SERVER", "PARAMETERS"];
  return table(
    headers,
    rows.map((row) => {
      const cells = [row.name, row.server, cut(row.params, Math.max(params, 10))];
      if (description > 0) cells.push(cut(row.description, description));
      return cells;
    }),
    context.style,
  );
}

function renderTool(context: CommandContext, tool: ToolDoc): void {
  const { style } = context;
  const rows = parameterRows(tool.inputSchema).map((p) => [
    terminalText(p.name),
    terminalText(p.type),
    p.required ? "yes" : "no",
    terminalText(p.description),
  ]);
  context.io.stdout.write(
    [
      `${style.bold(tool.name)}  (${terminalText(tool.server)}/${terminalText(tool.tool)})`,
      "",
      terminalText(ownDescription(tool)) || style.dim("(no description)"),
      "",
      rows.length ? table(["PARAMETER", "TYPE", "REQUIRED", "DESCRIPTION"], rows, style) : "No parameters.",
      "",
      style.bold("Input schema:"),
      terminalText(JSON.stringify(tool.inputSchema, null, 2)),
      "",
    ].join("\n"),
  );
}

export function renderTools(context: CommandContext, format: unknown, envelope: Envelope): void {
  const doc = envelope.document as { tool?: ToolDoc; tools?: ToolDoc[] };
  if (doc.tool) {
    if (context.global.json) writeJson(context.io, doc);
    else renderTool(context, doc.tool);
    return;
  }
  if (format !== "table" || !doc.tools) {
    writeJson(context.io, envelope.document);
    return;
  }
  context.io.stdout.write(
    doc.tools.length === 0 ? "No tools.\n" : `${renderTable(context, doc.tools, envelope.complete ?? [])}\n`,
  );
}
