import { join } from "node:path";

/**
 * A path with a leading `~` (`~`, `~/x`, `~\x`) in `home`; any other path unchanged (`~user` too).
 * For paths mcp-bridge is given without a shell to expand them: a host's `args`
 * (`"--config", "~/.config/mcp-bridge/mcp.json"`), an environment variable, a library option.
 */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(home, path.slice(2));
  return path;
}
