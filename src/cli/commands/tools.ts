import { toAnthropicTools } from "../../adapters/anthropic.js";
import { toOpenAITools } from "../../adapters/openai.js";
import type { Bridge } from "../../bridge/types.js";
import { errorMessages, ToolNotFoundError } from "../../errors.js";
import { suggest } from "../../util/suggest.js";
import { usageError } from "../args.js";
import { defineCommand, SERVER_FLAG } from "../command.js";
import { type CommandContext, openBridge } from "../context.js";
import { shorten, table, writeJson } from "../output.js";
import { parameterRows } from "../schema-view.js";
import { terminalText } from "../terminal.js";

const FORMATS = ["table", "json", "openai", "anthropic"] as const;

/** `mcp-bridge tools`: the registry as the LLM will see it. */
type Listed = ReturnType<Bridge["tools"]>[number];

/** `tools NAME` / `describe NAME`: one tool's full description, every parameter, and its schema. */
function describeTool(
  context: CommandContext,
  bridge: Bridge,
  wanted: string,
  tools: readonly Listed[],
): number {
  const tool = tools.find((t) => t.name === wanted || `${t.server}/${t.tool}` === wanted);
  if (!tool) {
    const near = suggest(
      wanted,
      tools.map((t) => t.name),
    );
    throw new ToolNotFoundError(errorMessages.noConnectedTool(wanted, near), { tool: wanted });
  }
  void bridge;
  if (context.global.json) {
    writeJson(context.io, {
      tool: {
        name: tool.name,
        server: tool.server,
        tool: tool.tool,
        description: tool.description,
        inputSchema: tool.inputSchema,
      },
    });
    return 0;
  }
  const { style } = context;
  const rows = parameterRows(tool.inputSchema).map((p) => [
    terminalText(p.name),
    terminalText(p.type),
    p.required ? "yes" : "no",
    terminalText(p.description),
  ]);
  context.io.stdout.write(
    [
      `${style.bold(tool.name)}  (${terminalText(tool.server)}/${terminalText(tool.tool)})`,
      "",
      terminalText(tool.description) || style.dim("(no description)"),
      "",
      rows.length ? table(["PARAMETER", "TYPE", "REQUIRED", "DESCRIPTION"], rows, style) : "No parameters.",
      "",
      style.bold("Input schema:"),
      terminalText(JSON.stringify(tool.inputSchema, null, 2)),
      "",
    ].join("\n"),
  );
  return 0;
}

async function runTools(context: CommandContext): Promise<number> {
  const format = (context.options.format as string | undefined) ?? (context.global.json ? "json" : "table");
  if (!FORMATS.includes(format as (typeof FORMATS)[number])) {
    throw usageError(`Unknown --format "${format}"; use ${FORMATS.join(", ")}`);
  }
  const server = context.options.server as string | undefined;
  // Listing needs no live server: one whose tools the catalog cache holds is not waited for.
  const bridge = await openBridge(context, server ? { only: [server] } : {}, { cachedIsReady: true });
  try {
    if (server && !bridge.server(server)) throw usageError(`No server named "${server}" in the config`);
    const cached = bridge.servers().filter((s) => s.catalog === "cache");
    if (cached.length > 0) {
      context.logger.info(
        `Tools of ${cached.map((s) => `"${s.name}"`).join(", ")} are from the catalog cache (their last live list).`,
      );
    }
    const tools = bridge.tools(server ? { server } : {});
    const [wanted] = context.positionals;
    if (wanted !== undefined) return describeTool(context, bridge, wanted, tools);
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
        // Labels from the schema itself: a union such as ["boolean","string"] is shown whole.
        const params = parameterRows(t.inputSchema)
          .map((p) => `${terminalText(p.name)}${p.required ? "" : "?"}: ${terminalText(p.type)}`)
          .join(", ");
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
  aliases: ["describe"],
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
  positionals: { usage: "[TOOL]", min: 0, max: 1 },
  description:
    "With TOOL (exposed name or server/tool; also `mcp-bridge describe TOOL`): that tool's full description, every parameter with its type (unions and enums whole) and its input schema.",
  examples: [
    "tools",
    "tools --server calc",
    "tools --format openai",
    "tools mcp_calc_add",
    "describe calc/add --json",
  ],
  run: runTools,
});
