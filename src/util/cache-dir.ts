import { join } from "node:path";
import { userDirIn } from "./private-path.js";

/**
 * mcp-bridge's folder in the user's cache folder: `MCP_BRIDGE_CACHE_DIR` (a per-user subfolder of it
 * when it names a shared folder such as /tmp, which is left as it is), else the platform's user cache
 * folder; undefined when the environment names none. The catalog cache and the CLI's compiled code
 * live there.
 */
export function userCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (env.MCP_BRIDGE_CACHE_DIR) return userDirIn(env.MCP_BRIDGE_CACHE_DIR);
  if (platform === "win32")
    return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, "mcp-bridge", "Cache") : undefined;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "mcp-bridge");
  if (!env.HOME) return undefined;
  return platform === "darwin"
    ? join(env.HOME, "Library", "Caches", "mcp-bridge")
    : join(env.HOME, ".cache", "mcp-bridge");
}
