import { lstatSync, mkdirSync, realpathSync, type Stats } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * mcp-bridge's folder in the user's cache folder: `MCP_BRIDGE_CACHE_DIR`, else the platform's user
 * cache folder; undefined when the environment names none. The catalog cache, the CLI's compiled code
 * and the bundled notes server's notes live there.
 */
export function userCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (env.MCP_BRIDGE_CACHE_DIR) return env.MCP_BRIDGE_CACHE_DIR;
  if (platform === "win32")
    return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, "mcp-bridge", "Cache") : undefined;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "mcp-bridge");
  if (!env.HOME) return undefined;
  return platform === "darwin"
    ? join(env.HOME, "Library", "Caches", "mcp-bridge")
    : join(env.HOME, ".cache", "mcp-bridge");
}

/**
 * Makes sure `dir` is a folder only this user can change: the missing parts are created 0700; an
 * existing folder is used only when it is a real folder (not a symlink), owned by this user and not
 * writable by others (or by a group not the user's own), and every folder above it belongs to this user or root and is either not
 * writable by others or sticky (as /tmp), so nobody can swap it. Nothing is ever chmod-ed: a folder we
 * did not create may be someone else's (or reached through a link someone planted), so it is refused
 * with the reason instead. Returns the reason it cannot be used, or undefined when it can.
 */
export function privateDirProblem(dir: string): string | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!stat.isDirectory()) return `${dir} is not a folder`;
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: no owners or mode bits to check
  if (stat.uid !== uid) return `${dir} belongs to user ${stat.uid}, not to you (${uid})`;
  if (writableByOthers(stat))
    return `${dir} is writable by other users (mode ${(stat.mode & 0o777).toString(8)})`;
  for (const path of [...ancestors(resolve(dir)), ...ancestors(realpathSync(dir))]) {
    const above = lstatSync(path);
    if (above.uid !== uid && above.uid !== 0)
      return `${path} belongs to user ${above.uid}, not to you or root`;
    const sticky = (above.mode & 0o1000) !== 0;
    if (!above.isSymbolicLink() && !sticky && writableByOthers(above)) {
      return `${path} is writable by other users (mode ${(above.mode & 0o777).toString(8)})`;
    }
  }
  return undefined;
}

/** Writable by others, or by a group other than the user's own (a umask 002 home is not a hole). */
function writableByOthers(stat: Stats): boolean {
  return (stat.mode & 0o002) !== 0 || ((stat.mode & 0o020) !== 0 && stat.gid !== process.getgid?.());
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let parent = dirname(path); parent !== path; path = parent, parent = dirname(path)) out.push(parent);
  return out;
}
