import { join } from "node:path";
import { userCacheDir } from "../../util/cache-dir.js";
import { ensurePrivateDir } from "../../util/private-path.js";

/**
 * The folder for Node's compile cache of the CLI's modules: `compile` in mcp-bridge's user cache
 * folder, both made (0700) or checked as private folders of ours. Node writes the compiled code of
 * every module it loads there and reads it back on the next start, so a folder another user can write
 * to, or a link they planted (in a shared MCP_BRIDGE_CACHE_DIR such as /tmp), would let them feed the
 * CLI code: then there is no cache (undefined), which only costs start-up time. Node's own default
 * (a folder in the system's temporary directory) is never used.
 */
export function compileCacheFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const cacheDir = userCacheDir(env);
  if (cacheDir === undefined) return undefined;
  try {
    ensurePrivateDir(cacheDir, { what: "cache folder" });
    return ensurePrivateDir(join(cacheDir, "compile"), { what: "compile cache" });
  } catch {
    return undefined;
  }
}
