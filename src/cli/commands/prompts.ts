import { promptDocument, promptsDocument } from "../../daemon/documents.js";
import type { PromptRequest, ServerFilterRequest } from "../../daemon/protocol.js";
import { defineCommand } from "../command.js";
import { PROMPT_FLAGS, PROMPT_POSITIONALS, PROMPTS_FLAGS, PROMPTS_POSITIONALS } from "../command-flags.js";
import { type CommandContext, openBridge } from "../context.js";
import { askedBy, renderAnswer } from "../views.js";

/** `mcp-bridge prompts [--server S]`: every connected server's prompts under their exposed names. */
async function runPrompts(context: CommandContext): Promise<number> {
  const asked = askedBy("prompts", context);
  const request = asked.body as ServerFilterRequest;
  const bridge = await openBridge(context, request.server ? { only: [request.server] } : {});
  try {
    return renderAnswer(context, asked, await promptsDocument(bridge, request));
  } finally {
    await bridge.close();
  }
}

/** `mcp-bridge prompt NAME [key=value ...]`: the prompt's messages. */
async function runPrompt(context: CommandContext): Promise<number> {
  const asked = askedBy("prompt", context);
  const request = asked.body as unknown as PromptRequest;
  const bridge = await openBridge(context, request.server ? { only: [request.server] } : {});
  try {
    return renderAnswer(context, asked, await promptDocument(bridge, request, context.io.signal));
  } finally {
    await bridge.close();
  }
}

export const promptsCommand = defineCommand({
  name: "prompts",
  summary: "prompts under their exposed names, with their arguments",
  flags: PROMPTS_FLAGS,
  positionals: PROMPTS_POSITIONALS,
  examples: ["prompts", "prompts --server docs"],
  run: runPrompts,
});

export const promptCommand = defineCommand({
  name: "prompt",
  summary: "a prompt's messages (exposed name or server/prompt)",
  flags: PROMPT_FLAGS,
  positionals: PROMPT_POSITIONALS,
  examples: ["prompt mcp_docs_summarize topic=billing"],
  run: runPrompt,
});
