/**
 * An entry that runs mcp-bridge's own `serve`/`attach` is the line a user adds to their MCP host
 * (Claude Code's `.mcp.json`, `claude mcp add bridge -- mcp-bridge attach`) so the host reaches the
 * bridge. mcp-bridge reads the same files (a project `.mcp.json`, `imports: ["claude-code"]`), and
 * starting that entry would start the bridge inside itself, again and again. Such an entry is skipped.
 */

/** The words after which mcp-bridge speaks MCP on stdio: the only ones a server entry can mean. */
const SERVING_COMMANDS = new Set(["serve", "attach"]);

/**
 * The bridge's own executables, by file name: the installed bin (`mcp-bridge`, `mcp-bridge.cmd` on
 * Windows), the package's bin script (`bin/mcp-bridge.js`), or a package spec given to a runner
 * (`npx mcp-bridge@0.1.0`, `npx -y mcp-bridge`).
 */
const BRIDGE_NAME = /^mcp-bridge(@[^/\\]*)?(\.(js|mjs|cjs|cmd|exe|ps1))?$/i;

/** The CLI's built entry (`node …/dist/src/apps/cli/bin.js`), however the package folder is named. */
const BRIDGE_ENTRY = /(^|[/\\])dist[/\\]src[/\\]apps[/\\]cli[/\\]bin\.js$/i;

function baseName(path: string): string {
  return path.split(/[/\\]/).pop() ?? path;
}

function isBridgeProgram(word: string): boolean {
  return BRIDGE_NAME.test(baseName(word)) || BRIDGE_ENTRY.test(word);
}

/** The words an entry runs, as written (command, then args; `command` may be a list). */
function words(raw: unknown): string[] {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  const entry = raw as { command?: unknown; args?: unknown };
  const command = Array.isArray(entry.command) ? entry.command : [entry.command];
  const args = Array.isArray(entry.args) ? entry.args : [];
  return [...command, ...args].filter((word): word is string => typeof word === "string");
}

/**
 * The command line (joined for a message) when the entry runs mcp-bridge's `serve` or `attach`, by any
 * spelling (`mcp-bridge serve --stdio`, `npx -y mcp-bridge attach`, `node /x/bin/mcp-bridge.js serve`,
 * `node …/dist/src/apps/cli/bin.js attach`); undefined for every other entry.
 */
export function bridgeSelfCommand(raw: unknown): string | undefined {
  const line = words(raw);
  const program = line.findIndex(isBridgeProgram);
  if (program < 0) return undefined;
  const serving = line.slice(program + 1).some((word) => SERVING_COMMANDS.has(word));
  return serving ? line.join(" ") : undefined;
}
