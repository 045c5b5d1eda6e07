import { statusDocument } from "../../daemon/documents.js";
import { openBridge } from "../bridge-commands.js";
import { renderAnswer } from "../command-answers.js";
import type { CommandContext } from "../command-context.js";
import { askedBy } from "../command-requests.js";
import { defineCommand } from "../command-spec.js";
import { STATUS_FLAGS, STATUS_POSITIONALS } from "../daemon-command-flags.js";

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
  name: "status",
  summary: "start every enabled server and show its state (exit 1 if any failed)",
  flags: STATUS_FLAGS,
  positionals: STATUS_POSITIONALS,
  examples: ["status", "status --json", "status --verbose"],
  run: runStatus,
});
