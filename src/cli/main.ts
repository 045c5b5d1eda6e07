import { readFileSync } from "node:fs";
import { ErrorCode, isMcpBridgeError, McpBridgeError } from "../errors.js";
import { parseCommandLine } from "./args.js";
import { authCommand } from "./commands/auth.js";
import { callCommand } from "./commands/call.js";
import { chatCommand } from "./commands/chat.js";
import { configCommand } from "./commands/config.js";
import { promptCommand, promptsCommand } from "./commands/prompts.js";
import { readCommand, resourcesCommand } from "./commands/resources.js";
import { statusCommand } from "./commands/status.js";
import { toolsCommand } from "./commands/tools.js";
import { trustCommand } from "./commands/trust.js";
import { createContext } from "./context.js";
import type { CliIO } from "./io.js";
import { writeJson } from "./output.js";
import { terminalText } from "./terminal.js";

const HELP = `mcp-bridge: the tools of any MCP server as native tools of an LLM agent

Usage: mcp-bridge <command> [options]

Commands:
  status                          start every enabled server and show its state (exit 1 if any failed)
  tools [--server NAME] [--format table|json|openai|anthropic]
                                  the tools as the LLM sees them
  call TOOL [key=value ...] [--args JSON] [--timeout DURATION]
                                  call a tool by exposed name (mcp_calc_add) or server/tool
  resources [--server NAME]       resources and resource templates of the connected servers
  read URI [--server NAME]        a resource as the LLM reads it (blobs as placeholders)
  prompts [--server NAME]         prompts under their exposed names, with their arguments
  prompt NAME [key=value ...]     a prompt's messages (exposed name or server/prompt)
  config show|paths|schema|validate
                                  the resolved config (secrets redacted), the search paths,
                                  the JSON Schema, or a validation report (exit 1 if an entry is skipped)
  config import --from claude-code|claude-desktop|cursor|vscode|codex
                                  servers found in another host's config files
  chat [--model M] [--provider openai|anthropic] [--base-url URL] [--system TEXT] [--yes]
                                  talk to a model that uses every server's tools (/help inside);
                                  -p QUESTION prints one answer and exits (--json: the transcript)
  auth login|logout|status [SERVER]
                                  OAuth login for a remote server (browser + 127.0.0.1 callback);
                                  tokens are kept per server, mode 0600, and refreshed
  trust [list|revoke]             approve the servers of this folder's project config files
                                  (./mcp.json, ./.mcp.json, ./.vscode/mcp.json, ...); they are
                                  not started before approval, and a changed definition asks again

Options:
  -c, --config PATH   config file (default: the search order, see \`config paths\`)
      --json          print one JSON document on stdout and nothing else
  -q, --quiet         only errors on stderr
  -v, --verbose       more detail (stderr of failed servers, debug logs)
      --no-color      no colors
      --trust-project start this folder's project-config servers without asking (this run
                      only; or set MCP_BRIDGE_TRUST_PROJECT=1, e.g. in CI)
  -h, --help          this help
  -V, --version       the version

Exit codes: 0 success, 1 a server or tool failed, 2 bad usage or config.
`;

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    return pkg.version;
  } catch {
    return "unknown";
  }
}

/** Runs one CLI invocation; returns the exit code. Never calls process.exit. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let json = argv.includes("--json");
  try {
    const parsed = parseCommandLine(argv);
    json = parsed.global.json;
    if (parsed.global.version) {
      io.stdout.write(`${version()}\n`);
      return 0;
    }
    if (parsed.global.help || !parsed.command || parsed.command === "help") {
      io.stdout.write(HELP);
      return parsed.command || parsed.global.help ? 0 : 2;
    }
    const context = createContext(io, parsed.global, parsed.options, parsed.positionals);
    switch (parsed.command) {
      case "status":
        return await statusCommand(context);
      case "tools":
        return await toolsCommand(context);
      case "call":
        return await callCommand(context);
      case "config":
        return await configCommand(context);
      case "resources":
        return await resourcesCommand(context);
      case "read":
        return await readCommand(context);
      case "prompts":
        return await promptsCommand(context);
      case "prompt":
        return await promptCommand(context);
      case "auth":
        return await authCommand(context);
      case "chat":
        return await chatCommand(context);
      case "trust":
        return await trustCommand(context);
      default:
        throw new McpBridgeError(
          ErrorCode.Usage,
          `Unknown command "${parsed.command}". Run \`mcp-bridge --help\`.`,
        );
    }
  } catch (error) {
    const code = isMcpBridgeError(error) ? error.code : "INTERNAL";
    const message = error instanceof Error ? error.message : String(error);
    if (json) writeJson(io, { error: { code, message } });
    else io.stderr.write(`error: ${terminalText(message)}\n`);
    const usage =
      code === ErrorCode.Usage ||
      code === ErrorCode.ConfigNotFound ||
      code === ErrorCode.ConfigParse ||
      code === ErrorCode.ConfigInvalid ||
      code === ErrorCode.ProjectNotTrusted;
    return usage ? 2 : 1;
  }
}
