import type { Bridge } from "../../bridge/api.js";
import { daemonUnknownOperation } from "../../errors/daemon-errors.js";
import { callArguments } from "../../util/key-values.js";
import {
  callDocument,
  owningServers,
  promptDocument,
  promptsDocument,
  readDocument,
  resourcesDocument,
  statusDocument,
  toolsDocument,
  writtenServerNames,
} from "./documents.js";
import type {
  CallRequest,
  Envelope,
  PromptRequest,
  ReadRequest,
  ServerFilterRequest,
  StatusRequest,
  ToolsRequest,
} from "./protocol.js";

/**
 * Answers one CLI operation (`status`, `tools`, `call`, ...) from the daemon's bridge with the same
 * document the command prints without a daemon. Servers still starting (right after the daemon
 * started, or after a reload) are waited for. `progress` receives a call's progress, if asked for.
 */
export async function answerOperation(
  bridge: Bridge,
  operation: string,
  body: unknown,
  signal: AbortSignal,
  progress: (update: { progress: number; total?: number; message?: string }) => void,
): Promise<Envelope> {
  await bridge.ready();
  switch (operation) {
    case "status":
      return statusDocument(bridge, body as StatusRequest);
    case "tools":
      return toolsDocument(bridge, body as ToolsRequest);
    case "resources":
      return resourcesDocument(bridge, body as ServerFilterRequest);
    case "read":
      return readDocument(bridge, body as ReadRequest, signal);
    case "prompts":
      return promptsDocument(bridge, body as ServerFilterRequest);
    case "prompt":
      return promptDocument(bridge, body as PromptRequest, signal);
    case "call": {
      const request = body as CallRequest;
      const owners = owningServers(
        request.name,
        writtenServerNames(bridge.config),
        bridge.config.settings.toolNameFormat,
      );
      return callDocument(
        bridge,
        {
          name: request.name,
          args: (schema, tool) => callArguments(request.args, request.pairs, schema, tool),
          timeout: request.timeout,
          maxResultChars: request.maxResultChars,
          signal,
          onProgress: request.progress ? progress : undefined,
        },
        owners,
      );
    }
    default:
      throw daemonUnknownOperation({ operation });
  }
}
