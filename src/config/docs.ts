import { docsMarkersMissing } from "../errors/config-errors.js";
import { type FieldSpec, SERVER_FIELDS, SETTINGS_FIELDS, SETTINGS_STRUCTURED, STRUCTURED } from "./fields.js";

/**
 * The key lists of docs/config.md, generated from the same field tables the loader and the JSON Schema
 * use (`node scripts/write-schema.mjs` writes them between the `<!-- keys:... -->` markers). A list, not a
 * table: a key's meaning runs to a few hundred characters, and a table row that long cannot be read.
 */
const code = (keys: readonly string[]) => keys.map((key) => `\`${key}\``).join(", ");

/** `` - `name` (also `a`, `b`; default 30 s): meaning `` */
function item(name: string, aliases: readonly string[], byDefault: string | undefined, doc: string): string {
  const notes = [aliases.length > 0 ? `also ${code(aliases)}` : "", byDefault ? `default ${byDefault}` : ""];
  const said = notes.filter(Boolean).join("; ");
  return `- \`${name}\`${said ? ` (${said})` : ""}: ${doc}`;
}

function scalarItems(fields: Record<string, FieldSpec>, note: (spec: FieldSpec) => string = () => "") {
  return Object.values(fields).map((spec) =>
    item(spec.name, spec.aliases, spec.default, spec.doc + note(spec)),
  );
}

function structuredItems(table: Record<string, { keys: readonly string[]; doc: string }>) {
  return Object.values(table).map((entry) =>
    item(entry.keys[0] ?? "", entry.keys.slice(1), undefined, entry.doc),
  );
}

export function serverKeysList(): string {
  const scope = (spec: FieldSpec) =>
    spec.scope === "stdio" ? " (stdio servers)" : spec.scope === "remote" ? " (remote servers)" : "";
  return [...structuredItems(STRUCTURED), ...scalarItems(SERVER_FIELDS, scope)].join("\n");
}

export function settingsKeysList(): string {
  return [...scalarItems(SETTINGS_FIELDS), ...structuredItems(SETTINGS_STRUCTURED)].join("\n");
}

/** Replaces the text between `<!-- keys:NAME:start -->` and `<!-- keys:NAME:end -->`. */
export function withGeneratedKeyLists(doc: string): string {
  const lists: Record<string, string> = { server: serverKeysList(), settings: settingsKeysList() };
  let out = doc;
  for (const [name, list] of Object.entries(lists)) {
    const start = `<!-- keys:${name}:start -->`;
    const end = `<!-- keys:${name}:end -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from === -1 || to < from) throw docsMarkersMissing({ start, end });
    out = `${out.slice(0, from + start.length)}\n${list}\n${out.slice(to)}`;
  }
  return out;
}
