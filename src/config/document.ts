import { basename } from "node:path";
import { appendAll } from "../util/append.js";
import { didYouMean } from "../util/suggest.js";
import type { Raw } from "./fields.js";
import type {
  AdmitProjectServer,
  BridgeSettings,
  ConfigFormat,
  ConfigWarning,
  ServerDefinition,
  SkippedServer,
} from "./model.js";
import { type NormalizeContext, normalizeServers, transportHint } from "./normalize.js";
import { normalizeSettings } from "./settings.js";

export interface ParsedConfig {
  readonly servers: ServerDefinition[];
  readonly settings: Partial<BridgeSettings>;
  readonly warnings: ConfigWarning[];
  readonly skipped: SkippedServer[];
  /** The format of the first servers section found (each server's `source` names its own). */
  readonly format: ConfigFormat;
}

export type DocumentContext = Omit<NormalizeContext, "format"> & {
  readonly admit?: AdmitProjectServer;
};

const HOST_FILES_WITH_OWN_KEYS = ["claude_desktop_config.json", ".claude.json", "config.toml"];

/** Top-level keys that mean something; any other is warned about with the nearest of these. */
const TOP_LEVEL_KEYS = [
  "mcpServers",
  "servers",
  "mcp",
  "mcp_servers",
  "settings",
  "mcpBridge",
  "inputs",
  "$schema",
];

interface Section {
  readonly format: ConfigFormat;
  /** How the section is written, for warnings that name where a server is. */
  readonly label: string;
  readonly entries: [string, unknown][];
}

/**
 * Finds every servers section of a document (`mcpServers`, Codex `[mcp_servers]`, `[[mcp.servers]]`,
 * `[mcp.servers]`, VS Code `servers`) and normalizes them all: a file may mix the forms. A name in two
 * sections loads from the first, with a warning naming both.
 */
export function normalizeDocument(data: Raw, context: DocumentContext): ParsedConfig {
  const warnings: ConfigWarning[] = [];
  const skipped: SkippedServer[] = [];
  const where = context.file ? { file: context.file } : {};
  const mcp = isTable(data.mcp) ? data.mcp : undefined;
  const settingsTable = isTable(data.settings)
    ? data.settings
    : isTable(data.mcpBridge)
      ? data.mcpBridge
      : undefined;
  const settings = {
    ...normalizeSettings(mcp, warnings, context.file, ["servers"]),
    ...normalizeSettings(settingsTable, warnings, context.file),
    ...context.settings,
  };
  const sections = findSections(data, mcp, warnings, skipped, where);
  // Some hosts keep their own settings beside the servers (Claude Desktop `globalShortcut`, Codex
  // `model`, ~/.claude.json `projects`): there only a likely typo of ours is named. Elsewhere (mcp-bridge's
  // own files, VS Code, Cursor, Claude Code's .mcp.json) every unknown top-level key is.
  const ownKeysToo = HOST_FILES_WITH_OWN_KEYS.includes(basename(context.file ?? ""));
  for (const key of Object.keys(data)) {
    if (TOP_LEVEL_KEYS.includes(key)) continue;
    const hint = didYouMean(key, TOP_LEVEL_KEYS);
    if (!hint && ownKeysToo && sections.length > 0) continue;
    warnings.push({
      kind: "unknown-key",
      field: key,
      message: `${context.file ?? "The config"}: unknown top-level key "${key}" was ignored${hint}`,
      ...where,
    });
  }
  const servers: ServerDefinition[] = [];
  const placeOf = new Map<string, string>();
  for (const section of sections) {
    const fresh = section.entries.filter(([name]) => {
      const first = placeOf.get(name);
      if (first === undefined) return true;
      warnings.push({
        kind: "duplicate-server",
        server: name,
        message: `Server "${name}" is defined in ${first} and in ${section.label}${context.file ? ` of ${context.file}` : ""}; the one in ${first} is used`,
        ...where,
      });
      return false;
    });
    const normalized = normalizeServers(fresh, { ...context, format: section.format, settings });
    for (const [name] of fresh) if (!placeOf.has(name)) placeOf.set(name, section.label);
    appendAll(servers, normalized.servers);
    appendAll(warnings, normalized.warnings);
    appendAll(skipped, normalized.skipped);
  }
  const format =
    sections[0]?.format ?? (/\.toml$/i.test(context.file ?? "") ? "toml-table" : "mcpServers-json");
  if (
    sections.length === 0 &&
    Object.keys(data).some((key) => !["settings", "mcpBridge", "mcp", "inputs", "$schema"].includes(key))
  ) {
    warnings.push({
      kind: "other",
      message: `${context.file ?? "The config"} has no "mcpServers", "servers", [mcp.servers], [[mcp.servers]], [mcp_servers] or [[mcp_servers]] section; no servers were loaded`,
      ...where,
    });
  }
  return { servers, settings, warnings, skipped, format };
}

function findSections(
  data: Raw,
  mcp: Raw | undefined,
  warnings: ConfigWarning[],
  skipped: SkippedServer[],
  where: { file?: string },
): Section[] {
  const sections: Section[] = [];
  if (isTable(data.mcpServers))
    sections.push({
      format: "mcpServers-json",
      label: '"mcpServers"',
      entries: Object.entries(data.mcpServers),
    });
  if (isTable(data.mcp_servers))
    sections.push({
      format: "codex-toml",
      label: "[mcp_servers]",
      entries: Object.entries(data.mcp_servers),
    });
  if (Array.isArray(data.mcp_servers))
    sections.push(arraySection(data.mcp_servers, "codex-toml", "[[mcp_servers]]", warnings, skipped, where));
  if (mcp && Array.isArray(mcp.servers))
    sections.push(arraySection(mcp.servers, "toml-array", "[[mcp.servers]]", warnings, skipped, where));
  if (mcp && isTable(mcp.servers))
    sections.push({ format: "toml-table", label: "[mcp.servers]", entries: Object.entries(mcp.servers) });
  if (isTable(data.servers))
    sections.push({ format: "vscode-json", label: '"servers"', entries: Object.entries(data.servers) });
  return sections;
}

/** A TOML array of tables (`[[mcp.servers]]`, `[[mcp_servers]]`): each entry names itself with `name`. */
function arraySection(
  list: unknown[],
  format: ConfigFormat,
  label: string,
  warnings: ConfigWarning[],
  skipped: SkippedServer[],
  where: { file?: string },
): Section {
  const entries: [string, unknown][] = [];
  list.forEach((entry, index) => {
    const name = isTable(entry) && typeof entry.name === "string" ? entry.name : "";
    if (name) {
      entries.push([name, isTable(entry) ? omit(entry, "name") : entry]);
      return;
    }
    const message = `${label} entry #${index + 1} has no "name"; it was skipped`;
    warnings.push({ kind: "invalid-entry", field: "name", message, ...where });
    skipped.push({
      name: `${label} #${index + 1}`,
      transport: transportHint(entry),
      kind: "invalid-entry",
      reason: message,
      field: "name",
      ...where,
    });
  });
  return { format, label, entries };
}

function isTable(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function omit(table: Raw, key: string): Raw {
  const { [key]: _dropped, ...rest } = table;
  return rest;
}
