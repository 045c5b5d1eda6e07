import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandHome } from "../util/home-path.js";
import { type LocationOptions, type Locations, resolveLocations } from "./locations.js";

/**
 * Where configs are looked for, with no import beyond node's own: the CLI's daemon path decides from
 * this which daemon to talk to before anything heavy is loaded.
 */
export interface SearchOptions extends LocationOptions {
  readonly path?: string;
}

export function vscodeUserConfig(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): string {
  if (platform === "darwin") return join(home, "Library", "Application Support", "Code", "User", "mcp.json");
  if (platform === "win32")
    return join(env.APPDATA ?? join(home, "AppData", "Roaming"), "Code", "User", "mcp.json");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "Code", "User", "mcp.json");
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
 * 3. `./mcp.json`, `./mcp.toml`, `./.mcp.json`, `./.vscode/mcp.json` in the working directory, in that order;
 * 4. `$XDG_CONFIG_HOME/mcp-bridge/mcp.json` then `mcp.toml` (`~/.config/...` when XDG_CONFIG_HOME is unset),
 *    then VS Code's user-level `mcp.json`.
 * A file named by 1 or 2 that does not exist is an error; the locations of 3 and 4 are skipped silently.
 */
export function configSearchPaths(options: SearchOptions = {}): SearchPath[] {
  return searchPathsIn(options.path, resolveLocations(options));
}

/** The search order of `configSearchPaths` for a `path` option (or none) in resolved locations. */
export function searchPathsIn(
  path: string | undefined,
  { env, cwd, home, platform }: Locations,
): SearchPath[] {
  const configHome = env.XDG_CONFIG_HOME || join(home, ".config");
  const candidates: { path: string; origin: SearchPath["origin"] }[] = [];
  // Named paths are often given where no shell expands `~` (a host's args, its env block).
  const named = (given: string) => resolve(cwd, expandHome(given, home));
  if (env.MCP_BRIDGE_CONFIG) candidates.push({ path: named(env.MCP_BRIDGE_CONFIG), origin: "env" });
  if (path) candidates.push({ path: named(path), origin: "option" });
  for (const name of ["mcp.json", "mcp.toml", ".mcp.json", join(".vscode", "mcp.json")])
    candidates.push({ path: join(cwd, name), origin: "cwd" });
  for (const name of ["mcp.json", "mcp.toml"])
    candidates.push({ path: join(configHome, "mcp-bridge", name), origin: "user" });
  candidates.push({ path: vscodeUserConfig(home, env, platform), origin: "user" });
  let usedIndex = -1;
  const withState = candidates.map((candidate, index) => {
    const exists = existsSync(candidate.path);
    const named = candidate.origin === "env" || candidate.origin === "option";
    if (usedIndex === -1 && (exists || named)) usedIndex = index;
    return { ...candidate, exists };
  });
  return withState.map((candidate, index) => ({ ...candidate, used: index === usedIndex }));
}
