import { createHash } from "node:crypto";

/**
 * Fingerprints of what a server says its tools (prompts, resource templates) are, and the readable
 * difference between two of them. Pure: the pin file and the gate use these, so do the tests.
 */

/** Which listing a pinned definition came from. */
export type PinKind = "tool" | "prompt" | "resourceTemplate" | "uiResource";

/** The fields of a definition that reach the model or decide what a call does; all are pinned. */
export const PINNED_FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "arguments",
  "uriTemplate",
  "mimeType",
  "ui",
  "content",
] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];

/** A definition cut to its pinned fields (`ui`: its `_meta.ui`); absent fields stay absent. */
export type PinnedDefinition = Partial<Record<PinnedField, unknown>>;

/** The pinned fields of a definition as a server listed it (a tool, prompt or resource template). */
export function pinnedDefinition(listed: Readonly<Record<string, unknown>>): PinnedDefinition {
  const picked: PinnedDefinition = {};
  for (const field of PINNED_FIELDS) {
    const value =
      field === "ui" ? (listed._meta as Record<string, unknown> | undefined)?.ui : (listed[field] as unknown);
    if (value !== undefined) picked[field] = value;
  }
  return picked;
}

/** JSON with every object's keys sorted, so the same definition written in another key order is equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (!inner || typeof inner !== "object" || Array.isArray(inner)) return inner;
    const entries = Object.entries(inner as Record<string, unknown>);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
}

/** sha256 of the canonical JSON of the pinned fields, hex. */
export function fingerprintOf(definition: PinnedDefinition): string {
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

/** One definition whose fingerprint no longer matches its pin. */
export interface ChangedDefinition {
  readonly kind: PinKind;
  readonly name: string;
  /** The pinned fields that differ. */
  readonly fields: readonly PinnedField[];
  /** Removed (`- `) and added (`+ `) lines of the description, when it changed. */
  readonly descriptionDiff?: readonly string[];
}

/** What a listing says that its pins did not: the drift of one server. */
export interface PinDrift {
  readonly server: string;
  readonly added: readonly { readonly kind: PinKind; readonly name: string }[];
  readonly removed: readonly { readonly kind: PinKind; readonly name: string }[];
  readonly changed: readonly ChangedDefinition[];
}

export function isDrift(drift: PinDrift): boolean {
  return drift.added.length + drift.removed.length + drift.changed.length > 0;
}

/** The fields in which two definitions differ, in PINNED_FIELDS order. */
export function changedFields(before: PinnedDefinition, after: PinnedDefinition): PinnedField[] {
  return PINNED_FIELDS.filter((field) => canonicalJson(before[field]) !== canonicalJson(after[field]));
}

/** Lines kept of a description diff, and characters of each: a diff is read, never a flood. */
const DIFF_LINES = 24;
const DIFF_LINE_CHARS = 240;

/**
 * A short unified-style diff of two texts by line: the lines only in `before` (`- `) and only in
 * `after` (`+ `), in order, around the longest common run of lines (LCS), capped.
 */
export function lineDiff(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  // Texts are short (descriptions); the quadratic table is bounded by capping the line counts.
  const n = Math.min(a.length, 400);
  const m = Math.min(b.length, 400);
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      (table[i] as number[])[j] =
        a[i] === b[j]
          ? ((table[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((table[i + 1] as number[])[j] as number, (table[i] as number[])[j + 1] as number);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  const cut = (line: string) => (line.length > DIFF_LINE_CHARS ? `${line.slice(0, DIFF_LINE_CHARS)}…` : line);
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (
      j >= m ||
      (i < n && ((table[i + 1] as number[])[j] as number) >= ((table[i] as number[])[j + 1] as number))
    ) {
      out.push(`- ${cut(a[i++] as string)}`);
    } else {
      out.push(`+ ${cut(b[j++] as string)}`);
    }
  }
  return out.length > DIFF_LINES
    ? [...out.slice(0, DIFF_LINES), `… ${out.length - DIFF_LINES} more lines`]
    : out;
}

/** The drift between pinned and listed definitions (each keyed by name) of one server and kind. */
export function compareDefinitions(
  kind: PinKind,
  pinned: ReadonlyMap<string, { readonly fingerprint: string; readonly definition: PinnedDefinition }>,
  listed: ReadonlyMap<string, { readonly fingerprint: string; readonly definition: PinnedDefinition }>,
): Pick<PinDrift, "added" | "removed" | "changed"> {
  const added: { kind: PinKind; name: string }[] = [];
  const changed: ChangedDefinition[] = [];
  for (const [name, now] of listed) {
    const pin = pinned.get(name);
    if (!pin) added.push({ kind, name });
    else if (pin.fingerprint !== now.fingerprint)
      changed.push(describeChange(kind, name, pin.definition, now.definition));
  }
  const removed = [...pinned.keys()].filter((name) => !listed.has(name)).map((name) => ({ kind, name }));
  return { added, removed, changed };
}

function describeChange(
  kind: PinKind,
  name: string,
  before: PinnedDefinition,
  after: PinnedDefinition,
): ChangedDefinition {
  const fields = changedFields(before, after);
  if (!fields.includes("description")) return { kind, name, fields };
  const text = (value: unknown) =>
    typeof value === "string" ? value : value === undefined ? "" : canonicalJson(value);
  return { kind, name, fields, descriptionDiff: lineDiff(text(before.description), text(after.description)) };
}

/** The drift as lines a person reads (CLI `pins diff`, the warning, TOOL_CHANGED). */
export function describeDrift(drift: PinDrift, only?: string): string[] {
  const lines: string[] = [];
  const label = (kind: PinKind) =>
    kind === "tool"
      ? "tool"
      : kind === "prompt"
        ? "prompt"
        : kind === "uiResource"
          ? "UI resource"
          : "resource template";
  for (const change of drift.changed) {
    if (only !== undefined && change.name !== only) continue;
    lines.push(`changed ${label(change.kind)} "${change.name}": ${change.fields.join(", ")}`);
    for (const line of change.descriptionDiff ?? []) lines.push(`    ${line}`);
  }
  for (const { kind, name } of drift.added)
    if (only === undefined || name === only) lines.push(`new ${label(kind)} "${name}"`);
  for (const { kind, name } of drift.removed)
    if (only === undefined || name === only) lines.push(`removed ${label(kind)} "${name}"`);
  return lines;
}
