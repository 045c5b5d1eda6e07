import type { Server } from "@modelcontextprotocol/server";
import type { Bridge } from "../../../bridge/api.js";
import type { CompleteRef } from "../../../bridge/features/completions.js";
import type { RequestTracker } from "../admission/request-tracker.js";
import type { GatewayProfile } from "../identity/profile.js";
import { notReachable, protocolErrorOf } from "../wire-errors.js";
import type { RequestForwarder } from "./forward.js";
import {
  forwardedPrompt,
  forwardedPromptResult,
  forwardedRead,
  forwardedResource,
  forwardedTemplate,
} from "./forwarded-listings.js";
import {
  reachablePrompt,
  reachablePrompts,
  reachableResources,
  reachableTemplates,
  resourceOwner,
} from "./reachable.js";
import { readStatus, STATUS_URI, statusResource } from "./upstream-status.js";

/** Runs a handler, turning a bridge error into the JSON-RPC error the client can act on. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw protocolErrorOf(error);
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
  registerResources(server, bridge, tracker, profile, forwarder);
  registerPrompts(server, bridge, tracker, profile, forwarder);
}

/** resources/list, resources/templates/list and resources/read, within the profile. */
function registerResources(
  server: Server,
  bridge: Bridge,
  tracker: RequestTracker,
  profile: GatewayProfile | undefined,
  forwarder?: RequestForwarder,
): void {
  server.setRequestHandler("resources/list", (request) =>
    tracker.handle("resources/list", request.params, () =>
      guarded(async () => ({
        resources: [
          ...(await reachableResources(bridge, profile)).map(forwardedResource),
          // The gateway's own, after the upstream servers' (see upstream-status.ts).
          statusResource,
        ],
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
        if (uri === STATUS_URI) return readStatus(bridge, profile);
        // The owner is chosen among the servers this client may reach, before anything is read.
        const owner = await resourceOwner(bridge, profile, uri);
        const content = await onServer(forwarder, owner, () =>
          bridge.readResource(uri, { binary: true, server: owner, signal: ctx.mcpReq.signal }),
        );
        return forwardedRead(content);
      }),
    ),
  );
}

/** prompts/list, prompts/get, and completion/complete (of prompts and resource templates), within the profile. */
function registerPrompts(
  server: Server,
  bridge: Bridge,
  tracker: RequestTracker,
  profile: GatewayProfile | undefined,
  forwarder?: RequestForwarder,
): void {
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
          context: request.params.context?.arguments,
        };
        const { target, owner } = await completionTarget(bridge, profile, ref);
        const result = await onServer(forwarder, owner, () => bridge.complete(target, argument, options));
        return {
          completion: {
            values: [...result.values],
            total: result.total,
            hasMore: result.hasMore,
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
