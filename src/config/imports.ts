import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors/index.js";
import { appendAll } from "../util/append.js";
import { type LocationOptions, type Locations, resolveLocations } from "./locations.js";
import type {
  AdmitProjectServer,
  BridgeSettings,
  ConfigWarning,
  ImportSourceName,
  ServerDefinition,
  SkippedServer,
} from "./model.js";
import { normalizeDocument, parseConfigText, parseDocument } from "./parse.js";
import { isProjectFile } from "./project.js";
import type { HoldServer } from "./quarantine.js";
import { vscodeUserConfig } from "./search-paths.js";

export { vscodeUserConfig };

export interface ImportOptions {
  /** Resolved once by the public entry (`loadConfig`, `importServers`). */
  readonly where: Locations;
  /** Asked before a server of a project-level file is expanded (see LoadConfigOptions). */
  readonly admitProjectServer?: AdmitProjectServer;
  /** The importing config's settings (server defaults such as `callTimeout` apply to imported servers too). */
  readonly settings?: Partial<BridgeSettings>;
  /** Holds the servers nobody approved (see quarantine.ts); undefined: none is held. */
  readonly hold?: HoldServer;
}

export interface ImportResult {
  readonly servers: ServerDefinition[];
  readonly warnings: ConfigWarning[];
  readonly skipped: SkippedServer[];
  /** Files that exist and were read. */
  readonly files: string[];
}

/** What `importServers` takes: the import options with its locations unresolved (each defaults to the process's). */
export interface ImportServersOptions extends LocationOptions, Omit<ImportOptions, "where"> {}

function claudeDesktopConfig(home: string, env: Locations["env"], platform: NodeJS.Platform): string {
  if (platform === "darwin")
    return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (platform === "win32")
    return join(env.APPDATA ?? join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "Claude", "claude_desktop_config.json");
}

/** Where each host keeps its MCP config on this machine, project files first. */
const LOCATIONS: Record<ImportSourceName, (where: Locations) => string[]> = {
  "claude-code": ({ cwd, home }) => [join(cwd, ".mcp.json"), join(home, ".claude.json")],
  "claude-desktop": ({ home, env, platform }) => [claudeDesktopConfig(home, env, platform)],
  cursor: ({ cwd, home }) => [join(cwd, ".cursor", "mcp.json"), join(home, ".cursor", "mcp.json")],
  vscode: ({ cwd, home, env, platform }) => [
    join(cwd, ".vscode", "mcp.json"),
    vscodeUserConfig(home, env, platform),
  ],
  codex: ({ cwd, home, env }) => [
    join(cwd, ".codex", "config.toml"),
    join(env.CODEX_HOME || join(home, ".codex"), "config.toml"),
  ],
};

export function importLocations(source: ImportSourceName, where: Locations): string[] {
  return LOCATIONS[source](where);
}

/**
 * Reads another host's MCP servers from its real files. For `~/.claude.json` only the `mcpServers`
 * maps are read (top level, then the project entry of the working directory), never its other keys.
 * A server found in a project file wins over the same name in a user file.
 */
export async function importServers(
  source: ImportSourceName,
  options: ImportServersOptions = {},
): Promise<ImportResult> {
  const { admitProjectServer, settings } = options;
  return importServersIn(source, { where: resolveLocations(options), admitProjectServer, settings });
}

/** `importServers` in resolved locations (what `loadConfig` calls for its `imports`). */
export async function importServersIn(
  source: ImportSourceName,
  options: ImportOptions,
): Promise<ImportResult> {
  if (source === "claude-code") return claudeCodeServers(options);
  const servers: ServerDefinition[] = [];
  const warnings: ConfigWarning[] = [];
  const skipped: SkippedServer[] = [];
  const files: string[] = [];
  // Names in a set, not a scan of the servers per server: a host file may hold thousands.
  const names = new Set<string>();
  const add = (found: ServerDefinition[]) => {
    for (const server of found) {
      if (names.has(server.name)) continue;
      names.add(server.name);
      servers.push(server);
    }
  };
  for (const file of importLocations(source, options.where)) {
    if (!existsSync(file)) continue;
    files.push(file);
    try {
      const text = readFileSync(file, "utf8");
      const project = options.admitProjectServer && isProjectFile(file, options.where);
      const expansion = {
        env: options.where.env,
        homeDir: options.where.home,
        readFile: (path: string) => readFileSync(path, "utf8"),
        settings: options.settings,
        ...(project ? { admit: options.admitProjectServer } : {}),
        ...(options.hold ? { hold: options.hold, importedFrom: source } : {}),
      };
      const parsed = parseConfigText(text, file, expansion);
      appendAll(warnings, parsed.warnings);
      appendAll(skipped, parsed.skipped);
      add(parsed.servers);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      warnings.push({ kind: "import", file, message: `Could not import from ${file}: ${error.message}` });
    }
  }
  return { servers, warnings, skipped, files };
}

/** A servers map of `~/.claude.json`: the user scope (top level) or the local scope of one folder. */
function claudeScope(data: Record<string, unknown>, folder: string | undefined): unknown {
  if (folder === undefined) return data.mcpServers;
  const projects = data.projects as Record<string, { mcpServers?: unknown } | undefined> | undefined;
  return projects && typeof projects === "object" ? projects[folder]?.mcpServers : undefined;
}

/**
 * What Claude Code shows in the working directory: the local scope (`~/.claude.json`
 * `projects["<folder>"].mcpServers`), then the project `.mcp.json` (its servers still need consent),
 * then the user scope (`~/.claude.json` top-level `mcpServers`); a name in several is taken from the
 * first, as Claude Code's precedence local > project > user. Of `~/.claude.json` only those maps are read.
 */
export function claudeCodeServers(options: ImportOptions): ImportResult {
  const servers: ServerDefinition[] = [];
  const names = new Set<string>();
  const warnings: ConfigWarning[] = [];
  const skipped: SkippedServer[] = [];
  const files: string[] = [];
  const [projectFile, userFile] = importLocations("claude-code", options.where) as [string, string];
  const readFile = (path: string) => readFileSync(path, "utf8");
  let user: Record<string, unknown> | undefined;
  if (existsSync(userFile)) {
    try {
      user = parseDocument(readFile(userFile), userFile);
      files.push(userFile);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      warnings.push({
        kind: "import",
        file: userFile,
        message: `Could not read ${userFile}: ${error.message}`,
      });
    }
  }
  const scopes: { file: string; map: () => unknown; project: boolean }[] = [
    { file: userFile, map: () => user && claudeScope(user, options.where.cwd), project: false },
    { file: projectFile, map: () => readProjectFile(projectFile, files, warnings), project: true },
    { file: userFile, map: () => user && claudeScope(user, undefined), project: false },
  ];
  for (const scope of scopes) {
    const map = scope.map();
    if (!map || typeof map !== "object" || Array.isArray(map)) continue;
    const fresh = Object.entries(map).filter(([name]) => !names.has(name));
    const admit = scope.project && options.admitProjectServer && isProjectFile(scope.file, options.where);
    const parsed = normalizeDocument(
      { mcpServers: Object.fromEntries(fresh) },
      {
        env: options.where.env,
        homeDir: options.where.home,
        readFile,
        settings: options.settings,
        file: scope.file,
        configDir: options.where.cwd,
        workspaceFolder: options.where.cwd,
        ...(admit ? { admit: options.admitProjectServer } : {}),
        ...(options.hold ? { hold: options.hold, importedFrom: "claude-code" } : {}),
      },
    );
    appendAll(warnings, parsed.warnings);
    appendAll(skipped, parsed.skipped);
    const format = scope.project ? ("mcpServers-json" as const) : ("claude-code-user" as const);
    for (const server of parsed.servers) {
      names.add(server.name);
      servers.push({ ...server, source: { file: scope.file, format } });
    }
  }
  // Listed in location order (project file first), like every other host's.
  return {
    servers,
    warnings,
    skipped,
    files: [projectFile, userFile].filter((file) => files.includes(file)),
  };
}

function readProjectFile(file: string, files: string[], warnings: ConfigWarning[]): unknown {
  if (!existsSync(file)) return undefined;
  try {
    const data = parseDocument(readFileSync(file, "utf8"), file);
    files.push(file);
    return data.mcpServers;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    warnings.push({ kind: "import", file, message: `Could not import from ${file}: ${error.message}` });
    return undefined;
  }
}
