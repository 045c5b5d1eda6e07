import { type FieldSpec, SERVER_FIELDS, SETTINGS_FIELDS, SETTINGS_STRUCTURED, STRUCTURED } from "./fields.js";

/**
 * The README's key tables, generated from the same field tables the loader and the JSON Schema use
 * (`node scripts/write-schema.mjs` writes them between the `<!-- keys:... -->` markers).
 */
const code = (keys: readonly string[]) => keys.map((key) => `\`${key}\``).join(", ");
const cell = (text: string) => text.replace(/\|/g, "\\|");

function scalarRows(fields: Record<string, FieldSpec>, note: (spec: FieldSpec) => string = () => "") {
  return Object.values(fields).map(
    (spec) =>
      `| \`${spec.name}\` | ${code(spec.aliases) || "-"} | ${cell(spec.default ?? "-")} | ${cell(spec.doc + note(spec))} |`,
  );
}

function structuredRows(table: Record<string, { keys: readonly string[]; doc: string }>) {
  return Object.values(table).map(
    (entry) => `| \`${entry.keys[0]}\` | ${code(entry.keys.slice(1)) || "-"} | - | ${cell(entry.doc)} |`,
  );
}

export function serverKeysTable(): string {
  const header = ["| key | also written | default | meaning |", "| --- | --- | --- | --- |"];
  const structured = structuredRows(STRUCTURED);
  const scope = (spec: FieldSpec) =>
    spec.scope === "stdio" ? " (stdio servers)" : spec.scope === "remote" ? " (remote servers)" : "";
  return [...header, ...structured, ...scalarRows(SERVER_FIELDS, scope)].join("\n");
}

export function settingsKeysTable(): string {
  const header = ["| setting | also written | default | meaning |", "| --- | --- | --- | --- |"];
  return [...header, ...scalarRows(SETTINGS_FIELDS), ...structuredRows(SETTINGS_STRUCTURED)].join("\n");
}

/** Replaces the text between `<!-- keys:NAME:start -->` and `<!-- keys:NAME:end -->`. */
export function withGeneratedTables(readme: string): string {
  const tables: Record<string, string> = { server: serverKeysTable(), settings: settingsKeysTable() };
  let out = readme;
  for (const [name, table] of Object.entries(tables)) {
    const start = `<!-- keys:${name}:start -->`;
    const end = `<!-- keys:${name}:end -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from === -1 || to < from) throw new Error(`README has no ${start} ... ${end} markers`);
    out = `${out.slice(0, from + start.length)}\n${table}\n${out.slice(to)}`;
  }
  return out;
}
