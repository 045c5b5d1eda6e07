import { toAnthropicTools } from "../../adapters/anthropic.js";
import { toOpenAITools } from "../../adapters/openai.js";
import { usageError } from "../args.js";
import { defineCommand, SERVER_FLAG } from "../command.js";
import { type CommandContext, openBridge } from "../context.js";
import { shorten, table, writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

const FORMATS = ["table", "json", "openai", "anthropic"] as const;

/** `mcp-bridge tools`: the registry as the LLM will see it. */
async function runTools(context: CommandContext): Promise<number> {
  const format = (context.options.format as string | undefined) ?? (context.global.json ? "json" : "table");
  if (!FORMATS.includes(format as (typeof FORMATS)[number])) {
    throw usageError(`Unknown --format "${format}"; use ${FORMATS.join(", ")}`);
  }
  const server = context.options.server as string | undefined;
  const bridge = await openBridge(context, server ? { only: [server] } : {});
  try {
    if (server && !bridge.server(server)) throw usageError(`No server named "${server}" in the config`);
    const tools = bridge.tools(server ? { server } : {});
    if (format === "openai") writeJson(context.io, toOpenAITools(tools));
    else if (format === "anthropic") writeJson(context.io, toAnthropicTools(tools));
    else if (format === "json") {
      writeJson(context.io, {
        tools: tools.map((t) => ({
          name: t.name,
          server: t.server,
          tool: t.tool,
          description: t.description,
          inputSchema: t.inputSchema,
        })),
      });
    } else {
      const rows = tools.map((t) => {
        const flat = t.flatParameters();
        const params = flat.parameters.map((p) => `${p.name}${p.required ? "" : "?"}: ${p.type}`).join(", ");
        return [
          t.name,
          t.server,
          t.tool,
          shorten(terminalText(t.description), 50),
          flat.complete ? params : `${params} (+schema)`,
        ];
      });
      context.io.stdout.write(
        tools.length === 0
          ? "No tools.\n"
          : `${table(["NAME", "SERVER", "TOOL", "DESCRIPTION", "PARAMETERS"], rows, context.style)}\n`,
      );
    }
    const failed = bridge.servers().filter((s) => s.state === "failed");
    for (const s of failed)
      context.logger.warn(`Server "${s.name}" is not connected: ${s.lastError?.message ?? "failed"}`);
    return failed.length > 0 ? 1 : 0;
  } finally {
    await bridge.close();
  }
}

export const toolsCommand = defineCommand({
  name: "tools",
  summary: "the tools as the LLM sees them",
  flags: {
    server: SERVER_FLAG,
    format: {
      type: "string",
      short: "f",
      value: "FORMAT",
      description: "table (default), json, openai or anthropic",
    },
  },
  positionals: { usage: "", min: 0, max: 0 },
  examples: ["tools", "tools --server calc", "tools --format openai"],
  run: runTools,
});
