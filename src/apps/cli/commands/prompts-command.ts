import { promptDocument, promptsDocument } from "../../daemon/documents.js";
import type { PromptRequest, ServerFilterRequest } from "../../daemon/protocol.js";
import { answerInProcess } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { promptDeclaration, promptsDeclaration } from "../declarations/server-commands.js";

/** `mcp-bridge prompts [--server S]`: every connected server's prompts under their exposed names. */
function runPrompts(context: CommandContext): Promise<number> {
  return answerInProcess<ServerFilterRequest>(context, "prompts", promptsDocument);
}

/** `mcp-bridge prompt NAME [key=value ...]`: the prompt's messages. */
function runPrompt(context: CommandContext): Promise<number> {
  return answerInProcess<PromptRequest>(context, "prompt", (bridge, request) =>
    promptDocument(bridge, request, context.io.signal),
  );
}

export const promptsCommand = defineCommand({
  ...promptsDeclaration,
  run: runPrompts,
});

export const promptCommand = defineCommand({
  ...promptDeclaration,
  run: runPrompt,
});
