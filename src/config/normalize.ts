import { entryProblem } from "../errors/entry-problems.js";
import { DEFAULT_SETTINGS } from "./defaults.js";
import type { ExpansionContext } from "./env.js";
import type { Raw } from "./fields.js";
import type {
  AdmitProjectServer,
  BridgeSettings,
  ConfigFormat,
  ConfigWarning,
  ServerDefinition,
  SkippedServer,
  TransportKind,
} from "./model.js";
import { normalizeEntry } from "./normalize-entry.js";
import { EntryProblem } from "./problem.js";
import type { HoldServer } from "./quarantine.js";
import { bridgeSelfCommand } from "./self-entry.js";

export interface NormalizeContext extends ExpansionContext {
  readonly file?: string;
  readonly format: ConfigFormat;
  /** Settings already in force (file settings when normalizing servers given in code). */
  readonly settings?: Partial<BridgeSettings>;
  /** Asked before an entry is expanded; a refused entry is left out (set only for project-level files). */
  readonly admit?: AdmitProjectServer;
  /** Asked before an entry is expanded: true holds it in quarantine (another host's file, see quarantine.ts). */
  readonly hold?: HoldServer;
  /** Which host's file is read, for the hold's message (`imported from claude-code`). */
  readonly importedFrom?: string;
  /** Reads a file an entry names (`envFile`); without it such entries are skipped. */
  readonly readFile?: (path: string) => string;
}

export interface NormalizedServers {
  readonly servers: ServerDefinition[];
  readonly warnings: ConfigWarning[];
  readonly skipped: SkippedServer[];
}

/** Normalizes a map (or TOML array) of raw server entries into definitions, skipping bad ones. */
export function normalizeServers(
  entries: ReadonlyArray<readonly [string, unknown]>,
  context: NormalizeContext,
): NormalizedServers {
  const settings = { ...DEFAULT_SETTINGS, ...context.settings };
  const servers: ServerDefinition[] = [];
  const warnings: ConfigWarning[] = [];
  const skipped: SkippedServer[] = [];
  const seen = new Set<string>();
  const where = context.file ? { file: context.file } : {};
  const skip = (name: string, raw: unknown, warning: ConfigWarning) => {
    warnings.push(warning);
    skipped.push({
      name,
      transport: transportHint(raw),
      kind: warning.kind,
      reason: warning.message,
      ...(warning.field ? { field: warning.field } : {}),
      ...where,
    });
  };
  for (const [name, raw] of entries) {
    if (typeof name !== "string" || name.trim() === "") {
      warnings.push({
        kind: "invalid-entry",
        field: "name",
        message: "A server entry has no name; it was skipped",
        ...where,
      });
      continue;
    }
    if (seen.has(name)) {
      warnings.push({
        kind: "duplicate-server",
        server: name,
        message: `Server "${name}" is defined more than once; the first definition is used`,
        ...where,
      });
      continue;
    }
    seen.add(name);
    // Before consent: the bridge's own entry is never started, so there is nothing to approve.
    const self = bridgeSelfCommand(raw);
    if (self !== undefined) {
      skip(name, raw, {
        kind: "self-reference",
        server: name,
        message: `Server "${name}" runs mcp-bridge itself (${self}); it was skipped, as mcp-bridge never serves itself. This entry is for your MCP host (Claude Code, Cursor, ...); mcp-bridge serves the other servers of the file`,
        ...where,
      });
      continue;
    }
    if (context.admit && !context.admit({ file: context.file ?? "", name, definition: raw })) {
      skip(name, raw, {
        kind: "untrusted",
        server: name,
        message: `Server "${name}" from the project file ${context.file ?? "(unknown)"} is not approved; it was left out. Approve it with \`mcp-bridge trust\` (or --trust-project)`,
        ...where,
      });
      continue;
    }
    if (context.hold?.({ file: context.file ?? "", name, definition: raw })) {
      const from = context.importedFrom ? ` (imported from ${context.importedFrom})` : "";
      skip(name, raw, {
        kind: "quarantined",
        server: name,
        message: `Server "${name}" of ${context.file ?? "(unknown)"}${from} is held: you have not approved it, so it is not started. Review it with \`mcp-bridge quarantine\` and approve it with \`mcp-bridge quarantine approve ${name}\``,
        ...where,
      });
      continue;
    }
    try {
      if (!raw || typeof raw !== "object" || Array.isArray(raw))
        throw new EntryProblem("(entry)", entryProblem.notObject());
      servers.push(normalizeEntry(name, raw as Raw, context, settings, warnings));
    } catch (error) {
      if (!(error instanceof EntryProblem)) throw error;
      skip(name, raw, {
        kind: error.kind,
        server: name,
        field: error.field,
        message: `Server "${name}" was skipped: ${error.message}`,
        ...where,
      });
    }
  }
  return { servers, warnings, skipped };
}

/** The transport an entry most likely meant, for showing a skipped entry beside the others. */
export function transportHint(raw: unknown): TransportKind {
  if (!raw || typeof raw !== "object") return "stdio";
  const entry = raw as Raw;
  const declared = String(entry.type ?? entry.transport ?? "").toLowerCase();
  if (declared === "sse") return "sse";
  if (declared.includes("http")) return "http";
  if (entry.command === undefined && entry.url !== undefined) return "http";
  return "stdio";
}
