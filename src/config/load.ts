import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { configNotFound } from "../errors/index.js";
import { appendAll } from "../util/append.js";
import { omitUndefined } from "../util/defined.js";
import { DEFAULT_SETTINGS } from "./defaults.js";
import { claudeCodeServers, importLocations, importServersIn } from "./imports.js";
import { type ResolveInput, resolveInputs } from "./inputs.js";
import { type LocationOptions, type Locations, resolveLocations } from "./locations.js";
import {
  type AdmitProjectServer,
  type BridgeSettings,
  type ConfigWarning,
  IMPORT_SOURCES,
  type ImportSourceName,
  type ProjectServerRequest,
  type ResolvedConfig,
  type ServerDefinition,
  type SkippedServer,
} from "./model.js";
import { normalizeDocument, normalizeFile, parseDocument } from "./parse.js";
import { isProjectFile } from "./project.js";
import {
  type HoldServer,
  importHold,
  ownConfigFile,
  QUARANTINE_MODES,
  type QuarantineMode,
} from "./quarantine.js";
import { type SearchPath, searchPathsIn } from "./search-paths.js";
import { normalizeCodeSettings, type SettingsInput } from "./settings.js";

export interface LoadConfigOptions extends LocationOptions {
  /** A config file named by the user (`--config`, the `config` option). */
  readonly path?: string;
  /** Servers given in code, in `mcpServers` shape: used instead of any file. */
  readonly servers?: Record<string, Record<string, unknown>>;
  /**
   * Servers added to whatever else is loaded (a command line's `--stdio`/`--http`), in `mcpServers`
   * shape; one named like a configured server replaces it, with a warning.
   */
  readonly extraServers?: Record<string, Record<string, unknown>>;
  /**
   * Settings given in code, over the file's: read as a settings table is (`callTimeout: "1500ms"`, or the
   * resolved `callTimeoutMs: 1500`) and applied to every server; a bad one throws CONFIG_INVALID.
   */
  readonly settings?: SettingsInput;
  /**
   * Asked for each server of a project-level file (found in the working directory, not named by
   * `path`/`$MCP_BRIDGE_CONFIG`/`servers`) before its `${VAR}`s are expanded; a refused server is left
   * out with an "untrusted" warning. Default: every server is admitted (a library host chose its cwd).
   */
  readonly admitProjectServer?: AdmitProjectServer;
  /**
   * Answers VS Code `${input:id}` prompts (asked once per id; `password` inputs should not echo). The
   * answers are kept in memory only. Without it, entries that use an input are skipped with a warning.
   */
  readonly resolveInput?: ResolveInput;
  /**
   * The servers being started (`only`); undefined: all. Inputs are asked for only for these: a server
   * not started needs no answer (it is then left out with the "input not answered" warning).
   */
  readonly only?: ReadonlySet<string>;
  /** Hears each server held in quarantine (see quarantine.ts): what `mcp-bridge quarantine` lists. */
  readonly onHeld?: (request: ProjectServerRequest) => void;
}

export { configSearchPaths, type SearchPath } from "./search-paths.js";

/** Other hosts' config files present on this machine (what `imports` could read), by host. */
export function hostConfigsFound(
  options: LoadConfigOptions = {},
): { source: ImportSourceName; file: string }[] {
  const where = resolveLocations(options);
  return IMPORT_SOURCES.flatMap((source) =>
    importLocations(source, where)
      .filter((file) => existsSync(file))
      .map((file) => ({ source, file })),
  );
}

/** Loads, expands and validates the config; the only module that reads config files. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const where = resolveLocations(options);
  const expansion: Expansion = {
    env: where.env,
    homeDir: where.home,
    readFile: (path: string) => readFileSync(path, "utf8"),
  };
  const loaded = await loadPrimary(options, where, expansion);
  if (options.extraServers) addExtraServers(loaded, options.extraServers, expansion, where.cwd);
  const settings: BridgeSettings = { ...DEFAULT_SETTINGS, ...loaded.settings };
  const mode = quarantineMode(options, where, loaded);
  const hold = importHold(mode, where, options.onHeld);
  await addImports(loaded, settings.imports, where, options.admitProjectServer, hold);
  // A set, not a scan of the servers per skipped entry: a big generated config must load in linear time.
  const loadedNames = new Set(loaded.servers.map((server) => server.name));
  return omitUndefined({
    servers: loaded.servers,
    settings,
    warnings: loaded.warnings,
    skipped: loaded.skipped.filter((entry) => !loadedNames.has(entry.name)),
    file: loaded.file,
    format: loaded.format,
  });
}

/** How `${...}` values are expanded in a config. */
interface Expansion {
  readonly env: NodeJS.ProcessEnv | Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  readonly readFile: (path: string) => string;
}

/** A config as loaded so far: the steps below add servers, warnings and skipped entries to it. */
interface Loaded {
  servers: ServerDefinition[];
  /** The settings given in code and the file's, without the defaults. */
  settings: Partial<BridgeSettings>;
  warnings: ConfigWarning[];
  skipped: SkippedServer[];
  file?: string | undefined;
  format?: ResolvedConfig["format"];
  /** False when the main file is another host's (its `quarantine` setting is then not believed). */
  own?: boolean;
}

/** The quarantine the host asked for (`MCP_BRIDGE_QUARANTINE`, then the settings given in code). */
function hostQuarantine(options: LoadConfigOptions, where: Locations): QuarantineMode | undefined {
  const variable = where.env.MCP_BRIDGE_QUARANTINE?.trim().toLowerCase();
  if ((QUARANTINE_MODES as readonly string[]).includes(variable ?? "")) return variable as QuarantineMode;
  return normalizeCodeSettings(options.settings).quarantine;
}

/** The host's quarantine, else the main file's when mcp-bridge owns it, else `imports`. */
function quarantineMode(options: LoadConfigOptions, where: Locations, loaded: Loaded): QuarantineMode {
  return (
    hostQuarantine(options, where) ??
    (loaded.own === false ? undefined : loaded.settings.quarantine) ??
    "imports"
  );
}

/** The servers given in code, or the config file chosen (Claude Code's scopes merged), or none. */
async function loadPrimary(
  options: LoadConfigOptions,
  where: Locations,
  expansion: Expansion,
): Promise<Loaded> {
  const { cwd } = where;
  const codeSettings = normalizeCodeSettings(options.settings);
  if (options.servers) {
    const data = { mcpServers: options.servers };
    const inputs = await resolveInputs(data, options.resolveInput, undefined, undefined, options.only);
    const parsed = normalizeDocument(data, {
      ...expansion,
      inputs,
      configDir: cwd,
      workspaceFolder: cwd,
      settings: codeSettings,
    });
    return { ...pick(parsed), format: "object" };
  }
  const chosen = searchPathsIn(options.path, where).find((candidate) => candidate.used);
  if (!chosen) return { servers: [], settings: codeSettings, warnings: [], skipped: [] };
  if (!chosen.exists) throw configNotFound({ file: chosen.path, origin: chosen.origin });
  const named = chosen.origin === "env" || chosen.origin === "option";
  const own = ownConfigFile(chosen.path, named, where);
  // A file mcp-bridge does not own is held under the host's `all` (never the file's own setting).
  const hold =
    !own && hostQuarantine(options, where) === "all" ? importHold("all", where, options.onHeld) : undefined;
  if (isClaudeCode(chosen)) {
    // Claude Code merges ~/.claude.json's scopes with the project .mcp.json: load what it shows here.
    const admit = options.admitProjectServer;
    const merged = claudeCodeServers({
      where,
      settings: codeSettings,
      admitProjectServer: admit ? onceEach(admit) : undefined,
      hold,
    });
    return { ...pick(merged), settings: codeSettings, file: chosen.path, format: "mcpServers-json", own };
  }
  const file = chosen.path;
  const data = parseDocument(readFileSync(file, "utf8"), file);
  const admit: { admit?: AdmitProjectServer } =
    !named && options.admitProjectServer && isProjectFile(file, where)
      ? { admit: onceEach(options.admitProjectServer) }
      : {};
  // Inputs are asked for only for servers that may load: nothing of a refused project server is used.
  const inputs = await resolveInputs(data, options.resolveInput, file, admit.admit, options.only);
  // The settings given in code go in with the file's, so they reach the file's servers too.
  const parsed = normalizeFile(data, file, {
    ...expansion,
    inputs,
    ...admit,
    ...(hold ? { hold } : {}),
    settings: codeSettings,
  });
  return { ...pick(parsed), file, format: parsed.format, own };
}

const pick = (parsed: {
  servers: ServerDefinition[];
  settings?: Partial<BridgeSettings>;
  warnings: ConfigWarning[];
  skipped: SkippedServer[];
}) => ({
  servers: parsed.servers,
  settings: parsed.settings ?? {},
  warnings: parsed.warnings,
  skipped: parsed.skipped,
});

/** Servers given on the command line: added, each replacing a configured one of its name. */
function addExtraServers(
  loaded: Loaded,
  extraServers: NonNullable<LoadConfigOptions["extraServers"]>,
  expansion: Expansion,
  cwd: string,
): void {
  const extra = normalizeDocument(
    { mcpServers: extraServers },
    { ...expansion, inputs: {}, configDir: cwd, workspaceFolder: cwd, settings: loaded.settings },
  );
  const configured = new Set(loaded.servers.map((server) => server.name));
  const replaced = new Set(extra.servers.map((server) => server.name));
  for (const server of extra.servers) {
    if (configured.has(server.name)) {
      loaded.warnings.push({
        kind: "other",
        server: server.name,
        message: `Server "${server.name}" given on the command line replaces the configured one`,
      });
    }
  }
  loaded.servers = [...loaded.servers.filter((existing) => !replaced.has(existing.name)), ...extra.servers];
  appendAll(loaded.warnings, extra.warnings);
  appendAll(loaded.skipped, extra.skipped);
}

/** The servers of other hosts' configs named by `imports`; a name already defined keeps its first. */
async function addImports(
  loaded: Loaded,
  sources: readonly ImportSourceName[],
  where: Locations,
  admitProjectServer: AdmitProjectServer | undefined,
  hold: HoldServer | undefined,
): Promise<void> {
  // Where each name was first defined, so a clash names both real sources.
  const sourceOf = new Map(
    loaded.servers.map((server) => [server.name, loaded.file ?? "the servers given in code"]),
  );
  for (const source of sources) {
    const imported = await importServersIn(source, {
      where,
      settings: loaded.settings,
      admitProjectServer,
      hold,
    });
    appendAll(loaded.warnings, imported.warnings);
    appendAll(
      loaded.skipped,
      imported.skipped.filter((entry) => !sourceOf.has(entry.name)),
    );
    for (const server of imported.servers) {
      const here = server.source?.file ?? source;
      const first = sourceOf.get(server.name);
      if (first !== undefined) {
        loaded.warnings.push({
          kind: "import",
          server: server.name,
          message: `Server "${server.name}" is in both ${first} and ${here} (imported from ${source}); the one in ${first} is used`,
        });
        continue;
      }
      sourceOf.set(server.name, here);
      loaded.servers.push(server);
    }
  }
}

/**
 * Claude Code's own files: `~/.claude.json` however it was named, or the project `.mcp.json` found in
 * the working directory (a `.mcp.json` named with --config is loaded alone, as written).
 */
function isClaudeCode(chosen: SearchPath): boolean {
  return (
    basename(chosen.path) === ".claude.json" ||
    (chosen.origin === "cwd" && basename(chosen.path) === ".mcp.json")
  );
}

/** Asks the host once per server (inputs and normalization both need the answer). */
function onceEach(admit: AdmitProjectServer): AdmitProjectServer {
  const answers = new Map<string, boolean>();
  return (request) => {
    const key = JSON.stringify([request.file, request.name]);
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = admit(request);
      answers.set(key, answer);
    }
    return answer;
  };
}
