/**
 * A private package cache per sandboxed server run by a package runner (`npx`, `uvx`, ...): the
 * runner's cache and install folders point into a folder of that server alone, the only one of them
 * the sandbox shows (writable). The host's own caches (`~/.npm`, `~/.cache/uv`) are never shown, so a
 * server cannot plant code there that another server, or the user's own `npx`, would later run.
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import { userCacheDir } from "../../util/cache-dir.js";
import { ensurePrivateDir } from "../../util/private-path.js";

/** Each variable that moves a runner's cache or installs, and its place in the private folder. */
const LAYOUT: Readonly<Record<string, string>> = {
  npm_config_cache: "npm",
  npm_config_store_dir: "pnpm-store",
  YARN_CACHE_FOLDER: "yarn",
  BUN_INSTALL_CACHE_DIR: "bun",
  UV_CACHE_DIR: join("uv", "cache"),
  UV_TOOL_DIR: join("uv", "tools"),
  UV_PYTHON_INSTALL_DIR: join("uv", "python"),
  PIPX_HOME: "pipx",
};

/**
 * `<cache>/sandbox-packages/<name>-<hash>`: the name made safe for a path, and a hash of the name as
 * written, so two names that read alike once made safe never share a folder.
 */
export function privateCacheFolder(
  server: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const root = userCacheDir(env) ?? join(env.HOME ?? "/", ".cache", "mcp-bridge");
  const safe = server.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 60);
  const hash = createHash("sha256").update(server).digest("hex").slice(0, 10);
  return join(root, "sandbox-packages", `${safe}-${hash}`);
}

/** Creates the folder (0700, ours, not a link) and returns the variables that point the runners into it. */
export function privateCacheEnv(folder: string): Record<string, string> {
  ensurePrivateDir(folder, { what: "sandboxed server's package cache" });
  const env: Record<string, string> = {};
  for (const [name, relative] of Object.entries(LAYOUT)) env[name] = join(folder, relative);
  return env;
}
