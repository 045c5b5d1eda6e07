import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  type AuthInfo,
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { UnreadBacklog } from "../admission/backlog.js";
import { ClientLimiter } from "../admission/client-limits.js";
import type { RequestTracker } from "../admission/request-tracker.js";
import type { ClusterStore } from "../cluster/cluster-store.js";
import { sessionOwnership } from "../cluster/session-ownership.js";
import { sharedBudget } from "../cluster/shared-budget.js";
import { answeredAsJson } from "../faces/mcp/json-only-clients.js";
import { GATEWAY_NAME, gatewayServer, toolCallScope } from "../faces/mcp/mcp-server.js";
import { httpFastPath } from "../fast-path/http-fast-path.js";
import type { ModernCallEntry } from "../fast-path/modern-call.js";
import { onListChanges } from "../forwarding/list-changes.js";
import type { GatewayClient, GatewayInstance } from "../forwarding/served-tool-call.js";
import { ClientLogLevel } from "../forwarding/upstream-logs.js";
import { callerOf, identityOf, limitKeyOf } from "../identity/authenticate.js";
import { LegacySessions } from "../identity/legacy-sessions.js";
import type { GatewayProfile } from "../identity/profile.js";
import type { CallerUpstreams } from "../per-caller/caller-upstreams.js";
import type { ResolvedGatewayOptions } from "./gateway-options.js";

/** Host and Origin names a loopback gateway answers to. */
export const LOOPBACK_NAMES = [...new Set([...localhostAllowedHostnames(), ...localhostAllowedOrigins()])];

/**
 * The `/mcp` endpoint: the stateless 2026-07-28 handler and the 2025-11-25 sessions over the bridge,
 * each request served by a server instance limited to its client's profile, list changes passed on
 * (and a call's own upstream log messages: see upstream-logs.ts), and DNS rebinding refused on a loopback bind.
 */
export function mcpEndpoint(
  options: ResolvedGatewayOptions,
  tracker: RequestTracker,
  cluster?: EndpointCluster,
  callers?: CallerUpstreams,
) {
  // With a cluster store, the per-minute budgets are the cluster's (concurrency stays per replica).
  const limiter = new ClientLimiter(
    options.limits,
    Date.now,
    cluster && sharedBudget(cluster.store, options.replica.id),
  );
  const { serverFor, modernEntry } = instances(options, tracker, limiter, callers);
  const handler = createMcpHandler((ctx) => serverFor(ctx.authInfo).server);
  const { sessions, ownership } = sessionTable(options, serverFor, cluster);
  const unsubscribe = [passListChanges(options.bridge, handler, sessions)];
  const node = sdkPath(options, sessions, handler, serverFor);
  // tools/call POSTs of established sessions skip the adapter and the SDK transport (fast-path/).
  const fast = options.fastPath
    ? httpFastPath({
        sessionServer: (id, identity) => sessions.serverOf(id, identity),
        modernEntry,
        allowedNames: options.loopback ? LOOPBACK_NAMES : undefined,
        maxBodyBytes: options.maxBodyBytes,
      })
    : undefined;
  return {
    sessions,
    /** Where sessions live across replicas; undefined without a cluster store. */
    ownership,
    /** The per-client limiter, shared with the REST face (faces/rest/rest-routes.ts). */
    limiter,
    /**
     * Answers one request to `/mcp` (already authenticated: `req.auth` set when auth is on);
     * `parsedBody` when its body was already read (see cluster/cluster-entry.ts, drain-retries.ts):
     * the fast path takes such a request only when it is a stateless 2026-07-28 call.
     */
    serve: (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown) =>
      responses.run(res, () =>
        fast
          ? fast(req, res, (asked) => node(asked, res, parsedBody), parsedBody)
          : node(req, res, parsedBody),
      ),
    async close(): Promise<void> {
      for (const stop of unsubscribe) stop();
      await sessions.close();
      await handler.close();
    },
  };
}

/** The cluster store and this replica's address, when the gateway has a store. */
interface EndpointCluster {
  readonly store: ClusterStore;
  readonly replica: () => { id: string; advertiseUrl: string };
}

type ServerFor = (auth: AuthInfo | undefined) => GatewayInstance;

/**
 * Who a request's client is, as what serves it: a server instance limited to its profile (the SDK
 * path, and the sessions' fast path), or the scope a stateless 2026-07-28 call runs with on the fast
 * path (what gatewayServer would give the per-request instance, without building one).
 */
function instances(
  options: ResolvedGatewayOptions,
  tracker: RequestTracker,
  limiter: ClientLimiter,
  callers: CallerUpstreams | undefined,
) {
  const { bridge, version, forwarder } = options;
  const backlog = new UnreadBacklog(options.maxUnreadBytes);
  // Without auth every caller is one client for sessions and parked calls, but the limits count each
  // session or connection apart (limitKeyOf): they must not bound the whole gateway.
  const clientFor = (auth: AuthInfo | undefined): GatewayClient => ({
    id: identityOf(auth),
    caller: callerOf(auth),
    limiter,
    limitKey: () => currentLimitKey(auth),
    delivered: responseSent,
    backlog,
    adminTools: options.adminTools,
    listWaitMs: options.listWaitMs,
    llmResults: options.llmResults,
    // Per-caller servers: this client's own connection and tokens, keyed by its credential's identity.
    ...(callers ? { ownUpstream: (ask) => callers.upstream(identityOf(auth), ask) } : {}),
  });
  const profileOf = (auth: AuthInfo | undefined) => auth?.extra?.profile as GatewayProfile | undefined;
  const serverFor: ServerFor = (auth) =>
    gatewayServer(bridge, tracker, profileOf(auth), version, clientFor(auth), forwarder);
  const serverInfo = { name: GATEWAY_NAME, version };
  const modernEntry = (auth: AuthInfo | undefined): ModernCallEntry => ({
    scope: toolCallScope(bridge, profileOf(auth), clientFor(auth), forwarder, new ClientLogLevel()),
    tracker,
    serverInfo,
  });
  return { serverFor, modernEntry };
}

/** The 2025-11-25 sessions; with a cluster store, recorded there so any replica can serve them (cluster/). */
function sessionTable(options: ResolvedGatewayOptions, serverFor: ServerFor, cluster?: EndpointCluster) {
  const ownership =
    cluster &&
    sessionOwnership({
      store: cluster.store,
      replica: cluster.replica,
      sessionIdleMs: options.sessionIdleMs,
      newServer: serverFor,
    });
  const sessions = new LegacySessions<GatewayInstance>(
    options.maxSessions,
    options.sessionIdleMs,
    ownership?.observer,
  );
  ownership?.attach(sessions);
  return { sessions, ownership };
}

/** Tells stateless clients and every open session of each listing that changed; returns the unsubscribe. */
function passListChanges(
  bridge: ResolvedGatewayOptions["bridge"],
  handler: ReturnType<typeof createMcpHandler>,
  sessions: LegacySessions<GatewayInstance>,
): () => void {
  // Coalesced (see list-changes.ts): servers coming up one after another are one round of notifications.
  return onListChanges(bridge, (changes) => {
    const open = sessions.servers();
    if (changes.tools) {
      handler.notify.toolsChanged();
      for (const s of open) s.sendToolListChanged().catch(() => undefined);
    }
    if (changes.resources) {
      handler.notify.resourcesChanged();
      for (const s of open) s.sendResourceListChanged().catch(() => undefined);
    }
    if (changes.prompts) {
      handler.notify.promptsChanged();
      for (const s of open) s.sendPromptListChanged().catch(() => undefined);
    }
  });
}

/** The SDK path: the node adapter over the sessions, then the stateless handler, for JSON-only clients too. */
function sdkPath(
  options: ResolvedGatewayOptions,
  sessions: LegacySessions<GatewayInstance>,
  handler: ReturnType<typeof createMcpHandler>,
  serverFor: ServerFor,
) {
  return toNodeHandler(
    {
      fetch: async (request, init) => {
        // DNS rebinding: a web page whose name resolves to 127.0.0.1 must not reach a loopback gateway
        // from the user's browser, so its Host (and Origin, when sent) must be a loopback name.
        const refused = options.loopback
          ? (hostHeaderValidationResponse(request, LOOPBACK_NAMES) ??
            originValidationResponse(request, LOOPBACK_NAMES))
          : undefined;
        if (refused) return refused;
        return answeredAsJson(request, async (asked) => {
          const opened = await sessions.handle(asked, init?.authInfo, () => serverFor(init?.authInfo));
          return opened ?? handler.fetch(asked, init);
        });
      },
    },
    { maxRequestBodySize: options.maxBodyBytes },
  );
}

/**
 * The HTTP response a request's handler runs for: request handlers run within `serve`'s call (the SDK's
 * HTTP transports hand each message to its server in the POST's own turn), so the response a result or
 * notification will be written to is known without the SDK passing it along.
 */
const responses = new AsyncLocalStorage<ServerResponse>();
const sentPromises = new WeakMap<ServerResponse, Promise<void>>();

/** The limit key of the request being answered (its response is known: see `responses`). */
function currentLimitKey(auth: AuthInfo | undefined): string {
  const req = responses.getStore()?.req;
  return req ? limitKeyOf(req) : identityOf(auth);
}

/** Resolves once the current HTTP response was written out or abandoned (its `close`). */
function responseSent(): Promise<void> | undefined {
  const res = responses.getStore();
  if (!res) return undefined;
  let sent = sentPromises.get(res);
  if (!sent) {
    sent = res.closed
      ? Promise.resolve()
      : new Promise<void>((resolve) => res.once("close", () => resolve()));
    sentPromises.set(res, sent);
  }
  return sent;
}
