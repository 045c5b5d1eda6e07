import { dirname, join } from "node:path";
import type { SearchPath } from "../../config/search-paths.js";
import type { CliIO } from "./cli-io.js";

/**
 * Whether the config file found deserves a `Using config FILE` line on stderr without --verbose: only
 * when the user could not guess it. `--config`, `../../cli/mcp.json|toml` and mcp-bridge's own user file are
 * expected; `$MCP_BRIDGE_CONFIG` (which overrides even --config) and another host's file that the
 * search order picked up (`../../cli/.mcp.json`, `../../cli/.vscode/mcp.json`, VS Code's user file) are not.
 */
export function surprisingConfig(
  found: Pick<SearchPath, "path" | "origin">,
  io: Pick<CliIO, "cwd" | "env">,
): boolean {
  if (found.origin === "env") return true;
  if (found.origin === "option") return false;
  const own = [join(io.cwd, "mcp.json"), join(io.cwd, "mcp.toml")];
  if (own.includes(found.path)) return false;
  const configHome = io.env.XDG_CONFIG_HOME || join(io.env.HOME ?? "", ".config");
  return dirname(found.path) !== join(configHome, "mcp-bridge");
}
