import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, ErrorCode } from "../errors.js";
import { DEFAULT_SETTINGS } from "./defaults.js";
import { importServers } from "./imports.js";
import type {
  AdmitProjectServer,
  BridgeSettings,
  ConfigWarning,
  ResolvedConfig,
  ServerDefinition,
} from "./model.js";
import { normalizeDocument, parseConfigText } from "./parse.js";
import { isProjectFile } from "./project.js";

export interface LoadConfigOptions {
  /** A config file named by the user (`--config`, the `config` option). */
  readonly path?: string;
  /** Servers given in code, in `mcpServers` shape: used instead of any file. */
  readonly servers?: Record<string, Record<string, unknown>>;
  readonly settings?: Partial<BridgeSettings>;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly homeDir?: string;
  readonly platform?: NodeJS.Platform;
  /**
   * Asked for each server of a project-level file (found in the working directory, not named by
   * `path`/`$MCP_BRIDGE_CONFIG`/`servers`) before its `${VAR}`s are expanded; a refused server is left
   * out with an "untrusted" warning. Default: every server is admitted (a library host chose its cwd).
   */
  readonly admitProjectServer?: AdmitProjectServer;
}

export interface SearchPath {
  readonly path: string;
  readonly origin: "env" | "option" | "cwd" | "user";
  readonly exists: boolean;
  readonly used: boolean;
}

/**
 * The config search order; the first that applies wins and nothing is merged:
 * 1. `$MCP_BRIDGE_CONFIG` (set by whoever runs the host; it overrides even `--config`, so an operator
 *    can redirect a host without editing its command line);
 * 2. the `path` option / `--config`;
 * 3. `./mcp.json`, `./mcp.toml`, `./.mcp.json` in the working directory, in that order;
 * 4. `$XDG_CONFIG_HOME/mcp-bridge/mcp.json` then `mcp.toml` (`~/.config/...` when XDG_CONFIG_HOME is unset).
 * A file named by 1 or 2 that does not exist is an error; the locations of 3 and 4 are skipped silently.
 */
export function configSearchPaths(options: LoadConfigOptions = {}): SearchPath[] {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = options.homeDir ?? env.HOME ?? homedir();
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const candidates: { path: string; origin: SearchPath["origin"] }[] = [];
  if (env.MCP_BRIDGE_CONFIG) candidates.push({ path: resolve(cwd, env.MCP_BRIDGE_CONFIG), origin: "env" });
  if (options.path) candidates.push({ path: resolve(cwd, options.path), origin: "option" });
  for (const name of ["mcp.json", "mcp.toml", ".mcp.json"])
    candidates.push({ path: join(cwd, name), origin: "cwd" });
  for (const name of ["mcp.json", "mcp.toml"])
    candidates.push({ path: join(configHome, "mcp-bridge", name), origin: "user" });
  let usedIndex = -1;
  const withState = candidates.map((candidate, index) => {
    const exists = existsSync(candidate.path);
    const named = candidate.origin === "env" || candidate.origin === "option";
    if (usedIndex === -1 && (exists || named)) usedIndex = index;
    return { ...candidate, exists };
  });
  return withState.map((candidate, index) => ({ ...candidate, used: index === usedIndex }));
}

/** Loads, expands and validates the config; the only module that reads config files. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const homeDir = options.homeDir ?? env.HOME ?? homedir();
  const expansion = { env, homeDir };
  const admitFor = (file: string): { admit?: AdmitProjectServer } =>
    options.admitProjectServer && isProjectFile(file, { cwd, env, homeDir })
      ? { admit: options.admitProjectServer }
      : {};
  let servers: ServerDefinition[];
  let settings: Partial<BridgeSettings>;
  let warnings: ConfigWarning[];
  let file: string | undefined;
  let format: ResolvedConfig["format"];
  if (options.servers) {
    const parsed = normalizeDocument(
      { mcpServers: options.servers },
      {
        ...expansion,
        configDir: cwd,
        workspaceFolder: cwd,
        ...(options.settings ? { settings: options.settings } : {}),
      },
    );
    ({ servers, settings, warnings } = parsed);
    format = "object";
  } else {
    const chosen = configSearchPaths(options).find((candidate) => candidate.used);
    if (chosen && !chosen.exists) {
      const how = chosen.origin === "env" ? "MCP_BRIDGE_CONFIG names" : "The config file";
      throw new ConfigError(
        ErrorCode.ConfigNotFound,
        `${how} ${chosen.path}, which does not exist. Check the path, or run \`mcp-bridge config paths\` to see where configs are looked for.`,
        { file: chosen.path },
      );
    }
    if (chosen) {
      file = chosen.path;
      const text = readFileSync(file, "utf8");
      const named = chosen.origin === "env" || chosen.origin === "option";
      const parsed = parseConfigText(text, file, { ...expansion, ...(named ? {} : admitFor(file)) });
      servers = parsed.servers;
      settings = { ...parsed.settings, ...options.settings };
      warnings = parsed.warnings;
      format = parsed.format;
    } else {
      servers = [];
      settings = { ...options.settings };
      warnings = [];
    }
  }
  const resolvedSettings: BridgeSettings = { ...DEFAULT_SETTINGS, ...settings };
  for (const source of resolvedSettings.imports) {
    const imported = await importServers(source, {
      cwd,
      homeDir,
      env,
      ...(options.platform ? { platform: options.platform } : {}),
      ...(options.admitProjectServer ? { admitProjectServer: options.admitProjectServer } : {}),
    });
    warnings.push(...imported.warnings);
    for (const server of imported.servers) {
      if (servers.some((existing) => existing.name === server.name)) {
        warnings.push({
          kind: "import",
          server: server.name,
          message: `Server "${server.name}" imported from ${server.source?.file ?? source} is also in ${file ?? "the config"}; the config's own definition is used`,
        });
        continue;
      }
      servers.push(server);
    }
  }
  return {
    servers,
    settings: resolvedSettings,
    warnings,
    ...(file === undefined ? {} : { file }),
    ...(format === undefined ? {} : { format }),
  };
}
