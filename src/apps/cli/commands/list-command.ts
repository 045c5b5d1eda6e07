import { redactServer } from "../../../config/redact-config.js";
import { writtenServerNames } from "../../daemon/documents.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { inputsAsWritten, loadCliConfig } from "../config-choice.js";
import { AD_HOC_FLAGS } from "../daemon-command-flags.js";
import { table, writeJson } from "../output.js";
import { listServerTools } from "../server-tools-view.js";
import { terminalText } from "../terminal.js";

/**
 * `mcp-bridge list`: the configured servers, read from the config without starting any (secrets
 * redacted); `status` starts them, `tools` lists their tools.
 */
async function runList(context: CommandContext): Promise<number> {
  const config = await loadCliConfig(context, { consent: false, resolveInput: inputsAsWritten });
  const [wanted] = context.positionals;
  if (wanted !== undefined) return listServerTools(context, wanted, writtenServerNames(config));
  const servers = config.servers.map(redactServer).map((server) => ({
    name: server.name,
    transport: server.transport,
    enabled: server.enabled,
    target: server.transport === "stdio" ? [server.command, ...server.args].join(" ") : server.url,
    file: server.source?.file ?? config.file ?? null,
  }));
  if (context.global.json) {
    writeJson(context.io, { file: config.file ?? null, servers });
    return 0;
  }
  context.io.stdout.write(
    servers.length === 0
      ? "No servers configured.\n"
      : `${table(
          ["SERVER", "TRANSPORT", "ENABLED", "COMMAND / URL"],
          servers.map((s) => [
            terminalText(s.name),
            s.transport,
            s.enabled ? "yes" : "no",
            terminalText(s.target),
          ]),
          context.style,
        )}\n`,
  );
  return 0;
}

export const listCommand = defineCommand({
  name: "list",
  aliases: ["ls"],
  summary: "the configured servers, without starting them (status starts them, tools lists their tools)",
  flags: AD_HOC_FLAGS,
  positionals: { usage: "[SERVER]", min: 0, max: 1 },
  description:
    "With SERVER (as `mcporter list SERVER`): starts that server only and lists its tools as signatures, `name(a: number, b?: string)`, each with its description; --json gives them with their input schemas.",
  examples: [
    "list",
    "list calc",
    "list --json",
    "list -c ./mcp.json",
    'list --stdio "npx -y @modelcontextprotocol/server-memory"',
  ],
  run: runList,
});
