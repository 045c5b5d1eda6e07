import type { ServerResponse } from "node:http";
import { GATEWAY_STORE_UP_METRIC } from "../../../telemetry/semconv.js";
import { type RequestTracker, requestTracker } from "../admission/request-tracker.js";
import { clusterEntry } from "../cluster/cluster-entry.js";
import type { ClusterStore } from "../cluster/cluster-store.js";
import { restRoutes } from "../faces/rest/rest-routes.js";
import { gatewayAuthenticator } from "../identity/authenticate.js";
import { CallerUpstreams } from "../per-caller/caller-upstreams.js";
import type { HttpAnswer } from "../wire-errors.js";
import { LOOPBACK_NAMES, mcpEndpoint } from "./endpoint.js";
import type { ResolvedGatewayOptions } from "./gateway-options.js";

/**
 * What the HTTP gateway is made of, built once from its resolved options before it listens: plain
 * parts the routes (http-routes.ts) and the drain (gateway.ts) read, and the little state they share
 * (`state`: its URL once listening, whether it drains, the responses not yet written out).
 */
export interface GatewayParts {
  readonly options: ResolvedGatewayOptions;
  readonly tracker: RequestTracker;
  readonly store: ClusterStore | undefined;
  readonly endpoint: ReturnType<typeof mcpEndpoint>;
  readonly auth: ReturnType<typeof gatewayAuthenticator>;
  readonly rest: ReturnType<typeof restRoutes>;
  readonly cluster: ReturnType<typeof clusterEntry>;
  /** The per-caller upstream connections and their consent callback (per-caller/). */
  readonly callers: CallerUpstreams;
  readonly state: GatewayState;
}

export interface GatewayState {
  /** The MCP endpoint's URL; known once listening (requests only arrive after that). */
  url: string;
  draining: boolean;
  /** Responses of `/mcp` not yet written out: drain waits for them before closing connections. */
  readonly active: Set<ServerResponse>;
}

/** Writes a JSON body with its status and headers. */
export function respond(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Writes one of the gateway's HTTP answers (wire-errors.ts `httpAnswers`). */
export function answer(res: ServerResponse, { status, body, headers }: HttpAnswer): void {
  respond(res, status, body, headers);
}

/** Builds the gateway's parts: the cluster store first (when asked), then the endpoint and the faces on it. */
export async function gatewayParts(options: ResolvedGatewayOptions): Promise<GatewayParts> {
  const tracker = requestTracker(options.telemetry, {
    "network.transport": "tcp",
    "network.protocol.name": "http",
  });
  const state: GatewayState = { url: "", draining: false, active: new Set() };
  const replica = () => ({ ...options.replica, advertiseUrl: options.replica.advertiseUrl ?? state.url });
  // The cluster store, only with `store`: the Redis client is loaded then and only then. With
  // `stateDir`, the same session records in a folder of this gateway's (one replica, restarts).
  // After an outage, the records of sessions opened meanwhile are written again (set once they exist).
  let storeBack: (() => void) | undefined;
  const store = options.store
    ? await clusterStore({ ...options, store: options.store }, replica, () => storeBack?.())
    : options.stateDir
      ? (await import("../cluster/file-store.js")).openFileStore({
          dir: options.stateDir,
          secret: options.replica.secret,
          replicaId: options.replica.id,
        })
      : undefined;
  const callers = new CallerUpstreams(options.bridge, {
    logger: options.logger,
    version: options.version,
    gatewayUrl: () => replica().advertiseUrl,
    ...(options.callerAuthDir ? { storageDir: options.callerAuthDir } : {}),
  });
  const endpoint = mcpEndpoint(options, tracker, store && { store, replica }, callers);
  storeBack = endpoint.ownership?.rewriteAll;
  const auth = gatewayAuthenticator(options.tokens, options.oauth);
  const allowedHosts = options.loopback ? LOOPBACK_NAMES : undefined;
  // The REST/OpenAPI face: same auth (http-routes.ts), profiles and limiter as /mcp.
  const rest = restRoutes({
    bridge: options.bridge,
    tracker,
    limiter: endpoint.limiter,
    forwarder: options.forwarder,
    maxBodyBytes: options.maxBodyBytes,
    version: options.version,
    secured: options.tokens.length > 0 || options.oauth !== undefined,
    allowedHosts,
    listWaitMs: options.listWaitMs,
    ownUpstream: (caller) => callers.upstream(caller, undefined),
  });
  const cluster = clusterEntry({
    replica,
    maxBodyBytes: options.maxBodyBytes,
    placement: endpoint.ownership?.placement,
    allowedHosts,
    answer,
    roundOwner: options.forwarder && ((body) => options.forwarder?.rounds.ownerOf(body)),
  });
  // Calls parked here name this replica in their tokens when other replicas can forward to it.
  options.forwarder?.rounds.locate(() => {
    const self = replica();
    return self.secret ? { id: self.id, url: self.advertiseUrl } : undefined;
  });
  return { options, tracker, store, endpoint, auth, rest, cluster, callers, state };
}

/**
 * Connects the cluster store (cluster/redis-store.ts, imported only here) and shows whether it
 * answers as the `mcp_bridge_gateway_store_up` gauge. A store down at start does not stop the
 * gateway: it serves alone until the store answers.
 */
async function clusterStore(
  options: ResolvedGatewayOptions & { readonly store: string },
  replica: () => { id: string; advertiseUrl: string },
  onBack: () => void,
): Promise<ClusterStore> {
  const { connectRedisStore } = await import("../cluster/redis-store.js");
  // Not refused (one replica with a store is a valid start), but several would half work: say so.
  if (!options.replica.secret)
    options.logger.warn(
      "The cluster store is used without a cluster secret (--cluster-secret-file): replicas cannot forward requests to each other, so a 2025-11-25 session whose request reaches another replica moves there (its open streams and waiting calls stay behind), and the retry of a call parked on another replica fails. Give every replica the same --cluster-secret-file.",
    );
  const store = await connectRedisStore({
    url: options.store,
    replicaId: options.replica.id,
    advertiseUrl: () => replica().advertiseUrl,
    logger: options.logger,
    onBack,
    secret: options.replica.secret,
  });
  options.telemetry?.meter
    .createObservableGauge(GATEWAY_STORE_UP_METRIC, {
      description: "1 while the gateway's cluster store answers, 0 while this replica works alone.",
    })
    .addCallback((result) => result.observe(store.up ? 1 : 0));
  return store;
}
