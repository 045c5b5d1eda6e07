import { statusDocument } from "../../daemon/documents.js";
import { openBridge } from "../bridge-commands.js";
import { renderAnswer } from "../command-answers.js";
import type { CommandContext } from "../command-context.js";
import { askedBy } from "../command-requests.js";
import { defineCommand } from "../command-spec.js";
import { statusDeclaration } from "../declarations/server-commands.js";

/**
 * `mcp-bridge status`: start every enabled server, one row each, plus a row in state `invalid` for each
 * entry the config could not load; exit 1 when any failed or is invalid.
 */
async function runStatus(context: CommandContext): Promise<number> {
  const asked = askedBy("status", context);
  const bridge = await openBridge(context);
  try {
    return renderAnswer(context, asked, statusDocument(bridge, asked.body));
  } finally {
    await bridge.close();
  }
}

export const statusCommand = defineCommand({
  ...statusDeclaration,
  run: runStatus,
});
