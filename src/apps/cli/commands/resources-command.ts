import { readDocument, resourcesDocument } from "../../daemon/documents.js";
import type { ReadRequest, ServerFilterRequest } from "../../daemon/protocol.js";
import { answerInProcess } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { readDeclaration, resourcesDeclaration } from "../declarations/server-commands.js";

/** `mcp-bridge resources [--server S]`: resources and resource templates of every connected server. */
function runResources(context: CommandContext): Promise<number> {
  return answerInProcess<ServerFilterRequest>(context, "resources", resourcesDocument);
}

/** `mcp-bridge read URI [--server S]`: one resource as the LLM would read it. */
function runRead(context: CommandContext): Promise<number> {
  return answerInProcess<ReadRequest>(context, "read", (bridge, request) =>
    readDocument(bridge, request, context.io.signal),
  );
}

export const resourcesCommand = defineCommand({
  ...resourcesDeclaration,
  run: runResources,
});

export const readCommand = defineCommand({
  ...readDeclaration,
  run: runRead,
});
