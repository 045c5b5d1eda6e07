import { readDocument, resourcesDocument } from "../../daemon/documents.js";
import type { ReadRequest, ServerFilterRequest } from "../../daemon/protocol.js";
import { defineCommand } from "../command.js";
import { READ_FLAGS, READ_POSITIONALS, RESOURCES_FLAGS, RESOURCES_POSITIONALS } from "../command-flags.js";
import { type CommandContext, openBridge } from "../context.js";
import { askedBy, renderAnswer } from "../views.js";

/** `mcp-bridge resources [--server S]`: resources and resource templates of every connected server. */
async function runResources(context: CommandContext): Promise<number> {
  const asked = askedBy("resources", context);
  const request = asked.body as ServerFilterRequest;
  const bridge = await openBridge(context, request.server ? { only: [request.server] } : {});
  try {
    return renderAnswer(context, asked, await resourcesDocument(bridge, request));
  } finally {
    await bridge.close();
  }
}

/** `mcp-bridge read URI [--server S]`: one resource as the LLM would read it. */
async function runRead(context: CommandContext): Promise<number> {
  const asked = askedBy("read", context);
  const request = asked.body as unknown as ReadRequest;
  const bridge = await openBridge(context, request.server ? { only: [request.server] } : {});
  try {
    return renderAnswer(context, asked, await readDocument(bridge, request, context.io.signal));
  } finally {
    await bridge.close();
  }
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
