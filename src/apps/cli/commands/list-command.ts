import type { ServerDefinition } from "../../../config/model.js";
import { redactServer } from "../../../config/redact-config.js";
import { writtenServerNames } from "../../daemon/documents.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { inputsAsWritten, loadCliConfig } from "../config-choice.js";
import { listDeclaration } from "../declarations/config-commands.js";
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
    target: targetOf(server),
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
  ...listDeclaration,
  run: runList,
});

/** What a server runs or where it is; a server given in code (in-process) has neither. */
function targetOf(server: ServerDefinition): string {
  if (server.transport === "stdio") return [server.command, ...server.args].join(" ");
  return server.transport === "in-process" ? "(in-process)" : server.url;
}
