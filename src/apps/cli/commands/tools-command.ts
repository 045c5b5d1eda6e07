import { toolsDocument } from "../../daemon/documents.js";
import type { ToolsRequest } from "../../daemon/protocol.js";
import { openBridge } from "../bridge-commands.js";
import { renderAnswer } from "../command-answers.js";
import type { CommandContext } from "../command-context.js";
import { askedBy } from "../command-requests.js";
import { defineCommand } from "../command-spec.js";
import { TOOLS_FLAGS, TOOLS_POSITIONALS } from "../daemon-command-flags.js";

/** `mcp-bridge tools`: the registry as the LLM will see it; `tools NAME`: one tool in full. */
async function runTools(context: CommandContext): Promise<number> {
  const asked = askedBy("tools", context);
  const request = asked.body as unknown as ToolsRequest;
  // Listing needs no live server: one whose tools the catalog cache holds is not waited for.
  const bridge = await openBridge(context, request.server ? { only: [request.server] } : {}, {
    cachedIsReady: true,
  });
  try {
    const cached = bridge.servers().filter((s) => s.catalog === "cache");
    if (cached.length > 0) {
      context.logger.info(
        `Tools of ${cached.map((s) => `"${s.name}"`).join(", ")} are from the catalog cache (their last live list).`,
      );
    }
    return renderAnswer(context, asked, toolsDocument(bridge, request));
  } finally {
    await bridge.close();
  }
}

export const toolsCommand = defineCommand({
  name: "tools",
  aliases: ["describe"],
  summary: "the tools as the LLM sees them; `describe TOOL` (or `tools TOOL`): one tool in full",
  flags: TOOLS_FLAGS,
  positionals: TOOLS_POSITIONALS,
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
