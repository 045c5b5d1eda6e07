import type { Server } from "@modelcontextprotocol/server";
import type { Bridge } from "../../../bridge/api.js";
import type { RequestTracker } from "../admission/request-tracker.js";
import type { GatewayProfile } from "../identity/profile.js";
import type { RequestForwarder } from "./forward.js";
import { guarded, onServer } from "./forwarded-features.js";
import { resourceOwner } from "./reachable.js";
import { onStatusChange, STATUS_URI } from "./upstream-status.js";

/**
 * `resources/subscribe` and `resources/unsubscribe` of one downstream server instance (a stdio client
 * or a 2025-11-25 session): the bridge subscribes upstream once per URI, and each
 * `notifications/resources/updated` goes to the instances that subscribed to it, nowhere else. A
 * resource outside the client's profile cannot be subscribed to. Everything is unsubscribed when the
 * instance closes, so a client that went away leaves no upstream subscription behind.
 */
export function registerSubscriptions(
  server: Server,
  bridge: Bridge,
  tracker: RequestTracker,
  profile: GatewayProfile | undefined,
  forwarder?: RequestForwarder,
): void {
  const active = new Map<string, Promise<() => Promise<void>>>();
  // The gateway's own status resource (see upstream-status.ts): watched here, never upstream.
  let statusWatch: (() => void) | undefined;
  const end = (uri: string) => {
    const subscribed = active.get(uri);
    active.delete(uri);
    return subscribed?.then((unsubscribe) => unsubscribe()).catch(() => undefined);
  };
  server.setRequestHandler("resources/subscribe", (request, ctx) =>
    tracker.handle("resources/subscribe", request.params, () =>
      guarded(async () => {
        const uri = request.params.uri;
        if (uri === STATUS_URI) {
          statusWatch ??= onStatusChange(bridge, () => {
            server.sendResourceUpdated({ uri }).catch(() => undefined);
          });
          return {};
        }
        // Only a server this client may reach is asked (see reachable.ts).
        const owner = await resourceOwner(bridge, profile, uri);
        if (!active.has(uri))
          await subscribeUpstream(server, bridge, active, { uri, owner, forwarder }, ctx.mcpReq.signal);
        return {};
      }),
    ),
  );
  server.setRequestHandler("resources/unsubscribe", (request) =>
    tracker.handle("resources/unsubscribe", request.params, () =>
      guarded(async () => {
        if (request.params.uri === STATUS_URI) {
          statusWatch?.();
          statusWatch = undefined;
        }
        await end(request.params.uri);
        return {};
      }),
    ),
  );
  const closed = server.onclose;
  server.onclose = () => {
    closed?.();
    statusWatch?.();
    for (const uri of [...active.keys()]) void end(uri);
  };
}

/** Subscribes upstream once for `uri` on its owner server; a failed subscription is forgotten. */
async function subscribeUpstream(
  server: Server,
  bridge: Bridge,
  active: Map<string, Promise<() => Promise<void>>>,
  { uri, owner, forwarder }: { uri: string; owner: string; forwarder: RequestForwarder | undefined },
  signal: AbortSignal,
): Promise<void> {
  const subscribing = bridge.subscribe(
    uri,
    () => {
      // A client that went away cannot be told; its instance closing unsubscribes.
      server.sendResourceUpdated({ uri }).catch(() => undefined);
    },
    { server: owner, signal },
  );
  active.set(uri, subscribing);
  await onServer(forwarder, owner, () =>
    subscribing.catch((error: unknown) => {
      if (active.get(uri) === subscribing) active.delete(uri);
      throw error;
    }),
  );
}
