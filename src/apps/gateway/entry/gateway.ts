import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { GATEWAY_STORE_UP_METRIC } from "../../../telemetry/semconv.js";
import { retryBody } from "../admission/drain-retries.js";
import { type RequestTracker, requestTracker } from "../admission/request-tracker.js";
import { clusterEntry } from "../cluster/cluster-entry.js";
import type { ClusterStore } from "../cluster/cluster-store.js";
import { isAdminRoute, serveAdminRoute } from "../faces/admin/admin-routes.js";
import { restRoutes } from "../faces/rest/rest-routes.js";
import { gatewayAuthenticator, identityOf } from "../identity/authenticate.js";
import { protectedResourceMetadata } from "../identity/jwt-auth.js";
import { type HttpAnswer, httpAnswers } from "../wire-errors.js";
import { LOOPBACK_NAMES, mcpEndpoint } from "./endpoint.js";
import {
  type GatewayOptions,
  type ResolvedGatewayOptions,
  resolveGatewayOptions,
} from "./gateway-options.js";

export type { GatewayOptions } from "./gateway-options.js";

export interface Gateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly tracker: RequestTracker;
  /**
   * Stop accepting new calls, wait (bounded by `drainTimeoutMs`) for the calls in flight and for the
   * calls parked for their client's next round, answering the retries those need, then close.
   */
  drain(): Promise<void>;
  /** Close at once. The bridge stays open: it belongs to the caller. */
  close(): Promise<void>;
}

/** After the last call settles, how long drain waits for its response to be written. */
const RESPONSE_FLUSH_MS = 2_000;

/** setTimeout's longest delay; a longer one (an infinite drain bound) would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `/readyz`: the gateway answers `/mcp` at once, but is worth traffic once its catalog is whole:
 * every server it started has connected or failed (each bounded by its startup timeout) and one is
 * connected. A balancer that sent traffic as soon as one server was up handed clients a partial
 * `tools/list`. A gateway with none to wait for (no server configured, or only lazy or disabled
 * ones) is ready too; one whose servers all failed is not. Once started, a lazy server starting on
 * demand does not make it unready, nor does a server reconnecting while another is connected.
 */
function upstreamReadiness(): (servers: readonly { readonly state: string }[]) => boolean {
  let started = false;
  const waiting = new Set(["connecting", "reconnecting", "failed"]);
  return (servers) => {
    started ||= !servers.some((s) => s.state === "connecting");
    if (!started) return false;
    if (servers.some((s) => s.state === "connected")) return true;
    return !servers.some((s) => waiting.has(s.state));
  };
}

const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Serves the bridge's merged catalog as one MCP server over Streamable HTTP (both protocol eras). */
export async function startGateway(given: GatewayOptions): Promise<Gateway> {
  const options = resolveGatewayOptions(given);
  const tracker = requestTracker(options.telemetry, {
    "network.transport": "tcp",
    "network.protocol.name": "http",
  });
  // Known once listening; requests only arrive after that.
  let url = "";
  const replica = () => ({ ...options.replica, advertiseUrl: options.replica.advertiseUrl ?? url });
  // The cluster store, only with `store`: the Redis client is loaded then and only then.
  // After an outage, the records of sessions opened meanwhile are written again (set once they exist).
  let storeBack: (() => void) | undefined;
  const store = options.store
    ? await clusterStore({ ...options, store: options.store }, replica, () => storeBack?.())
    : undefined;
  const endpoint = mcpEndpoint(options, tracker, store && { store, replica });
  storeBack = endpoint.ownership?.rewriteAll;
  const { sessions } = endpoint;
  const rounds = options.forwarder?.rounds;
  const auth = gatewayAuthenticator(options.tokens, options.oauth);
  // The REST/OpenAPI face: same auth (below), profiles and limiter as /mcp.
  const rest = restRoutes({
    bridge: options.bridge,
    tracker,
    limiter: endpoint.limiter,
    forwarder: options.forwarder,
    maxBodyBytes: options.maxBodyBytes,
    version: options.version,
    secured: options.tokens.length > 0 || options.oauth !== undefined,
    allowedHosts: options.loopback ? LOOPBACK_NAMES : undefined,
    listWaitMs: options.listWaitMs,
  });
  const cluster = clusterEntry({
    replica,
    maxBodyBytes: options.maxBodyBytes,
    placement: endpoint.ownership?.placement,
    allowedHosts: options.loopback ? LOOPBACK_NAMES : undefined,
    answer: (res, given) => answer(res, given),
    roundOwner: options.forwarder && ((body) => options.forwarder?.rounds.ownerOf(body)),
  });
  // Calls parked here name this replica in their tokens when other replicas can forward to it.
  options.forwarder?.rounds.locate(() => {
    const self = replica();
    return self.secret ? { id: self.id, url: self.advertiseUrl } : undefined;
  });
  let draining = false;
  const upstreamReady = upstreamReadiness();
  const active = new Set<ServerResponse>();

  const respond = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const answer = (res: ServerResponse, { status, body, headers }: HttpAnswer) =>
    respond(res, status, body, headers);
  const route = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => {
    // The endpoint's own path as clients send it needs no URL parsing (most requests).
    const path = req.url === "/mcp" ? "/mcp" : new URL(req.url ?? "/", "http://gateway").pathname;
    if (path === "/healthz") return respond(res, 200, { status: "ok" });
    if (path === "/readyz") {
      const ready = !draining && upstreamReady(options.bridge.servers());
      return respond(res, ready ? 200 : 503, { ready, draining, inFlight: tracker.inFlight });
    }
    if (options.oauth && (path === METADATA_PATH || path === `${METADATA_PATH}/mcp`)) {
      return respond(res, 200, protectedResourceMetadata(options.oauth, url));
    }
    if (isAdminRoute(path)) {
      return serveAdminRoute(options.bridge, options.adminToken, path, req, res, respond);
    }
    if (rest.owns(path)) {
      if (draining) return rest.draining(res);
      const refusal = await auth.authorize(req);
      if (refusal) return rest.refuse(res, refusal);
      return rest.serve(req, res);
    }
    if (path !== "/mcp") return answer(res, httpAnswers.notFound());
    // Draining, only the retry of a call already begun is still answered (below); nothing else is.
    if (draining && rounds === undefined) return answer(res, httpAnswers.draining());
    const refusal = await auth.authorize(req);
    if (refusal) return answer(res, httpAnswers.unauthorized(refusal.headers));
    // A response stays "active" until written out: a call's result is written just after its handler
    // returns, so drain waits for these too before closing connections.
    active.add(res);
    const session = req.headers["mcp-session-id"];
    const identity = identityOf(req.auth);
    // A session is not idle while one of its own POSTs is being answered, however long that takes.
    const release =
      req.method === "POST" && typeof session === "string" ? sessions.hold(session, identity) : undefined;
    res.once("close", () => {
      active.delete(res);
      release?.();
      // A session client that drops a POST before its answer is written has gone away (no event store
      // lets it resume): end its session so its calls are cancelled upstream.
      if (!res.writableFinished && req.method === "POST" && typeof session === "string")
        void sessions.drop(session, identity);
    });
    // Forwarded by another replica, or a session that lives on another one (see cluster/cluster-entry.ts).
    const here = await cluster.admit(req, res, identity);
    if (!here) return;
    // Draining: only the retry of a call already begun is still answered (see drain-retries.ts).
    const parsedBody = draining
      ? await retryBody(req, options.maxBodyBytes, here.parsedBody)
      : here.parsedBody;
    if (draining && parsedBody === undefined) return answer(res, httpAnswers.draining());
    await endpoint.serve(req, res, parsedBody);
  };
  const http = createServer((req, res) => {
    route(req, res).catch((error) => {
      if (!res.headersSent) answer(res, httpAnswers.internal(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  url = `http://${shownHost}:${address.port}/mcp`;
  auth.listening(url, `http://${shownHost}:${address.port}${METADATA_PATH}/mcp`);
  let listenerClosed: Promise<void> | undefined;
  const stopListening = () => {
    listenerClosed ??= new Promise<void>((resolve) => http.close(() => resolve()));
    return listenerClosed;
  };
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      http.closeAllConnections();
      await stopListening();
      await endpoint.close();
      await store?.close();
    })();
    return closed;
  };
  return {
    url,
    tracker,
    close,
    async drain() {
      // Stop accepting: idle keep-alive connections closed, a new request on a busy one gets 503. New
      // connections too are refused, unless calls may need their client's next round (a forwarder):
      // a call parked here (a 2025-era upstream asked mid-call) ends only when its retry gets in, so
      // retries are still served until nothing is in flight or parked. A 2026-07-28 upstream's call
      // parks nothing: its state travels sealed in the client's token, any replica resumes it.
      draining = true;
      const listening = rounds === undefined ? stopListening() : undefined;
      http.closeIdleConnections();
      const deadline = Date.now() + options.drainTimeoutMs;
      let timer: NodeJS.Timeout | undefined;
      let timedOut = false;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(
          () => {
            timedOut = true;
            resolve();
          },
          Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())),
        );
      });
      // A retry resumes a parked call (in flight again), which ends or parks anew: wait until neither.
      const settled = () => tracker.inFlight === 0 && (rounds?.parkedCount ?? 0) === 0;
      while (!timedOut && !settled()) {
        await Promise.race([Promise.all([tracker.idle(), rounds?.idle()]), bound]);
      }
      clearTimeout(timer);
      // Let the last results reach their clients. Long-lived streams (subscriptions/listen) never end
      // by themselves, hence a short bound of its own.
      const flushBy = Math.min(deadline, Date.now() + RESPONSE_FLUSH_MS);
      while (active.size > 0 && Date.now() < flushBy) await new Promise((r) => setTimeout(r, 20));
      await close();
      await (listening ?? stopListening());
    },
  };
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
