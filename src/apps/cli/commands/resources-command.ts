import { readDocument, resourcesDocument } from "../../daemon/documents.js";
import type { ReadRequest, ServerFilterRequest } from "../../daemon/protocol.js";
import { answerInProcess } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import {
  READ_FLAGS,
  READ_POSITIONALS,
  RESOURCES_FLAGS,
  RESOURCES_POSITIONALS,
} from "../daemon-command-flags.js";

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
  name: "resources",
  summary: "resources and resource templates of the connected servers",
  flags: RESOURCES_FLAGS,
  positionals: RESOURCES_POSITIONALS,
  examples: ["resources", "resources --server docs --json"],
  run: runResources,
});

export const readCommand = defineCommand({
  name: "read",
  summary: "a resource as the LLM reads it (blobs as placeholders)",
  flags: READ_FLAGS,
  positionals: READ_POSITIONALS,
  examples: ["read file:///README.md", "read docs://intro --server docs"],
  run: runRead,
});
