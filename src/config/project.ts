import { isAbsolute, join, relative, resolve } from "node:path";

import type { Locations } from "./locations.js";

export type ProjectContext = Pick<Locations, "cwd" | "env" | "home">;

const inside = (folder: string, file: string) => {
  const path = relative(resolve(folder), resolve(file));
  return path === "" || (!path.startsWith("..") && !isAbsolute(path));
};

/**
 * A project-level file: one that came with the working directory (a cloned repository's `./mcp.json`,
 * `./.mcp.json`, `./.vscode/mcp.json`, `./.cursor/mcp.json`, ...), so whoever wrote the repository chose
 * its commands. The user's own folders (`$XDG_CONFIG_HOME`, `~/.claude.json`, `~/.cursor`, `~/.codex`,
 * `$CODEX_HOME`) are not project files even when the working directory is the home folder.
 */
export function isProjectFile(file: string, context: ProjectContext): boolean {
  if (!inside(context.cwd, file)) return false;
  const { home } = context;
  const userPlaces = [
    context.env.XDG_CONFIG_HOME || join(home, ".config"),
    join(home, ".claude.json"),
    join(home, ".cursor"),
    join(home, ".codex"),
    ...(context.env.CODEX_HOME ? [context.env.CODEX_HOME] : []),
    ...(context.env.APPDATA ? [context.env.APPDATA] : []),
    join(home, "Library", "Application Support"),
  ];
  return !userPlaces.some((place) => inside(place, file));
}
