import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { retryBody } from "../admission/drain-retries.js";
import { isAdminRoute, serveAdminRoute } from "../faces/admin/admin-routes.js";
import { identityOf } from "../identity/authenticate.js";
import { protectedResourceMetadata } from "../identity/jwt-auth.js";
import { CONSENT_CALLBACK_PATH } from "../per-caller/caller-upstreams.js";
import { httpAnswers } from "../wire-errors.js";
import { answer, type GatewayParts, respond } from "./gateway-parts.js";

export type GatewayRequest = IncomingMessage & { auth?: AuthInfo };

/** Answers one request; `path` is its URL's path. */
export type RouteHandler = (req: GatewayRequest, res: ServerResponse, path: string) => Promise<void> | void;

/** One row of the router: which requests it takes (a method when it matters, a path pattern) and its handler. */
export interface Route {
  /** Undefined: any method (the handler answers a wrong one itself). */
  readonly method?: string;
  /** The exact path, or a test of it. */
  readonly path: string | ((path: string) => boolean);
  readonly handle: RouteHandler;
}

export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/**
 * The router: the first row that takes the request answers it; none does, 404. The endpoint's own
 * path as clients send it needs no URL parsing (most requests).
 */
export function router(
  routes: readonly Route[],
): (req: GatewayRequest, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const path = req.url === "/mcp" ? "/mcp" : new URL(req.url ?? "/", "http://gateway").pathname;
    const route = routes.find(
      (r) =>
        (r.method === undefined || r.method === req.method) &&
        (typeof r.path === "string" ? r.path === path : r.path(path)),
    );
    if (route) return route.handle(req, res, path);
    answer(res, httpAnswers.notFound());
  };
}

/** The HTTP gateway's routes, in the order they are tried. */
export function gatewayRoutes(parts: GatewayParts): Route[] {
  const { options, rest, state } = parts;
  const upstreamReady = upstreamReadiness();
  const { oauth } = options;
  return [
    { path: "/healthz", handle: (_req, res) => respond(res, 200, { status: "ok" }) },
    {
      path: "/readyz",
      handle: (_req, res) => {
        const ready = !state.draining && upstreamReady(options.bridge.servers());
        respond(res, ready ? 200 : 503, {
          ready,
          draining: state.draining,
          inFlight: parts.tracker.inFlight,
        });
      },
    },
    ...(oauth
      ? [
          {
            path: (path: string) => path === METADATA_PATH || path === `${METADATA_PATH}/mcp`,
            handle: (_req: GatewayRequest, res: ServerResponse) =>
              respond(res, 200, protectedResourceMetadata(oauth, state.url)),
          },
        ]
      : []),
    // A browser coming back from a caller's login (per-caller mode): no gateway credential, the
    // authorization request's single-use `state` names the login.
    { method: "GET", path: CONSENT_CALLBACK_PATH, handle: (req, res) => parts.callers.callback(req, res) },
    {
      path: isAdminRoute,
      handle: (req, res, path) =>
        serveAdminRoute(options.bridge, options.adminToken, path, req, res, respond),
    },
    { path: (path) => rest.owns(path), handle: (req, res) => serveRest(parts, req, res) },
    { path: "/mcp", handle: (req, res) => serveMcp(parts, req, res) },
  ];
}

/** The REST face: refused while draining, then authenticated as `/mcp` is. */
async function serveRest(parts: GatewayParts, req: GatewayRequest, res: ServerResponse): Promise<void> {
  if (parts.state.draining) return parts.rest.draining(res);
  const refusal = await parts.auth.authorize(req);
  if (refusal) return parts.rest.refuse(res, refusal);
  return parts.rest.serve(req, res);
}

/**
 * `/mcp`, one step after the other: authenticate, identify, hold the session, place it in the cluster
 * (forwarded to the replica that owns it, or served here), let only retries in while draining, then
 * the endpoint (which decides once between the fast path and the SDK path).
 */
async function serveMcp(parts: GatewayParts, req: GatewayRequest, res: ServerResponse): Promise<void> {
  const { options, state } = parts;
  // Draining, only the retry of a call already begun is still answered (below); nothing else is.
  if (state.draining && options.forwarder?.rounds === undefined) return answer(res, httpAnswers.draining());
  const refusal = await parts.auth.authorize(req);
  if (refusal) return answer(res, httpAnswers.unauthorized(refusal.headers));
  const identity = identityOf(req.auth);
  holdUntilWritten(parts, req, res, identity);
  // Forwarded by another replica, or a session that lives on another one (see cluster/cluster-entry.ts).
  const here = await parts.cluster.admit(req, res, identity);
  if (!here) return;
  // Draining: only the retry of a call already begun is still answered (see drain-retries.ts).
  const parsedBody = state.draining
    ? await retryBody(req, options.maxBodyBytes, here.parsedBody)
    : here.parsedBody;
  if (state.draining && parsedBody === undefined) return answer(res, httpAnswers.draining());
  await parts.endpoint.serve(req, res, parsedBody);
}

/**
 * A response stays "active" until written out: a call's result is written just after its handler
 * returns, so drain waits for these too before closing connections. A session is not idle while one
 * of its own POSTs is being answered, however long that takes.
 */
function holdUntilWritten(
  parts: GatewayParts,
  req: GatewayRequest,
  res: ServerResponse,
  identity: string,
): void {
  const { active } = parts.state;
  const { sessions } = parts.endpoint;
  active.add(res);
  const session = req.headers["mcp-session-id"];
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
}

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
