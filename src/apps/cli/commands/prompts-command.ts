import { promptDocument, promptsDocument } from "../../daemon/documents.js";
import type { PromptRequest, ServerFilterRequest } from "../../daemon/protocol.js";
import { answerInProcess } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import {
  PROMPT_FLAGS,
  PROMPT_POSITIONALS,
  PROMPTS_FLAGS,
  PROMPTS_POSITIONALS,
} from "../daemon-command-flags.js";

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
