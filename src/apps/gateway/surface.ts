import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { CompleteRef } from "../../bridge/completions.js";
import type { Bridge } from "../../bridge/types.js";
import { ErrorCode, McpBridgeError } from "../../errors/index.js";
import { errorText } from "../../util/text-of.js";
import type { RequestForwarder } from "./forward.js";
import {
  forwardedPrompt,
  forwardedPromptResult,
  forwardedRead,
  forwardedResource,
  forwardedTemplate,
} from "./forwarded-listings.js";
import type { RequestTracker } from "./handle.js";
import type { GatewayProfile } from "./profile.js";
import {
  notReachable,
  reachablePrompt,
  reachablePrompts,
  reachableResources,
  reachableTemplates,
  resourceOwner,
} from "./reachable.js";

const CLIENT_ERRORS = new Set<string>([
  ErrorCode.ResourceNotFound,
  ErrorCode.PromptNotFound,
  ErrorCode.InvalidArguments,
  ErrorCode.ToolNotFound,
]);

/**
 * A bridge error becomes a JSON-RPC error the client can act on: invalid params for what the client
 * got wrong (unknown resource or prompt, missing arguments), internal error for upstream failures.
 */
function protocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const clientSide = error instanceof McpBridgeError && CLIENT_ERRORS.has(error.code);
  return new ProtocolError(
    clientSide ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError,
    errorText(error),
  );
}

/** Runs a handler, turning a bridge error into the JSON-RPC error the client can act on. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw protocolError(error);
  }
}

/**
 * Runs `fn`, a request of this client to upstream server `owner`, marked as running there so that a
 * question the server asks meanwhile is never taken for another client's (see forward.ts).
 */
export async function onServer<T>(
  forwarder: RequestForwarder | undefined,
  owner: string,
  fn: () => Promise<T>,
): Promise<T> {
  const leave = forwarder?.occupy(owner);
  try {
    return await fn();
  } finally {
    leave?.();
  }
}

/** Resources and prompts of the servers the profile allows, under the bridge's names. */
export function registerSurface(
  server: Server,
  bridge: Bridge,
  tracker: RequestTracker,
  profile: GatewayProfile | undefined,
  forwarder?: RequestForwarder,
): void {
  server.setRequestHandler("resources/list", (request) =>
    tracker.handle("resources/list", request.params, () =>
      guarded(async () => ({
        resources: (await reachableResources(bridge, profile)).map(forwardedResource),
      })),
    ),
  );
  server.setRequestHandler("resources/templates/list", (request) =>
    tracker.handle("resources/templates/list", request.params, () =>
      guarded(async () => ({
        resourceTemplates: (await reachableTemplates(bridge, profile)).map(forwardedTemplate),
      })),
    ),
  );
  server.setRequestHandler("resources/read", (request, ctx) =>
    tracker.handle("resources/read", request.params, () =>
      guarded(async () => {
        const uri = request.params.uri;
        // The owner is chosen among the servers this client may reach, before anything is read.
        const owner = await resourceOwner(bridge, profile, uri);
        const content = await onServer(forwarder, owner, () =>
          bridge.readResource(uri, { binary: true, server: owner, signal: ctx.mcpReq.signal }),
        );
        return forwardedRead(content);
      }),
    ),
  );
  server.setRequestHandler("prompts/list", (request) =>
    tracker.handle("prompts/list", request.params, () =>
      guarded(async () => ({
        prompts: (await reachablePrompts(bridge, profile)).map(forwardedPrompt),
      })),
    ),
  );
  server.setRequestHandler("prompts/get", (request, ctx) =>
    tracker.handle("prompts/get", request.params, () =>
      guarded(async () => {
        const name = request.params.name;
        const { server: owner } = await reachablePrompt(bridge, profile, name);
        const result = await onServer(forwarder, owner, () =>
          bridge.getPrompt(name, request.params.arguments ?? {}, { signal: ctx.mcpReq.signal }),
        );
        return forwardedPromptResult(result);
      }),
    ),
  );
  server.setRequestHandler("completion/complete", (request, ctx) =>
    tracker.handle("completion/complete", request.params, () =>
      guarded(async () => {
        const { ref, argument } = request.params;
        const options = {
          signal: ctx.mcpReq.signal,
          ...(request.params.context?.arguments ? { context: request.params.context.arguments } : {}),
        };
        const { target, owner } = await completionTarget(bridge, profile, ref);
        const result = await onServer(forwarder, owner, () => bridge.complete(target, argument, options));
        return {
          completion: {
            values: [...result.values],
            ...(result.total === undefined ? {} : { total: result.total }),
            ...(result.hasMore === undefined ? {} : { hasMore: result.hasMore }),
          },
        };
      }),
    ),
  );
}

/**
 * The prompt or resource template a completion is for, among what the profile lets the client see.
 * A template is served under its URI as the upstream server wrote it: the first visible server with it.
 */
async function completionTarget(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
): Promise<{ target: CompleteRef; owner: string }> {
  if (ref.type === "ref/prompt") {
    const { server } = await reachablePrompt(bridge, profile, ref.name);
    return { target: { type: "prompt", name: ref.name }, owner: server };
  }
  const template = (await reachableTemplates(bridge, profile)).find((t) => t.uriTemplate === ref.uri);
  if (!template) throw notReachable.template(ref.uri);
  return {
    target: { type: "resource", uriTemplate: template.uriTemplate, server: template.server },
    owner: template.server,
  };
}
