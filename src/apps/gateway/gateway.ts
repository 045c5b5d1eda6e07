import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Bridge } from "../../bridge/types.js";
import { ConfigError, ErrorCode } from "../../errors/index.js";
import type { Telemetry } from "../../telemetry/telemetry.js";
import { packageInfo } from "../../util/package-info.js";
import { errorText } from "../../util/text-of.js";
import { isAdminRoute, serveAdminRoute } from "./admin-routes.js";
import { gatewayAuthenticator, identityOf } from "./authenticate.js";
import { mcpEndpoint } from "./endpoint.js";
import type { RequestForwarder } from "./forward.js";
import { type RequestTracker, requestTracker } from "./handle.js";
import type { GatewayLimits } from "./limits.js";
import { type GatewayOAuth, protectedResourceMetadata } from "./oauth.js";
import type { GatewayToken } from "./tokens.js";

export interface GatewayOptions {
  readonly bridge: Bridge;
  /** Default 127.0.0.1. Any other address requires `tokens`. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Static bearer tokens; when given, every MCP request must carry one. */
  readonly tokens?: readonly GatewayToken[];
  /** OAuth 2.1 resource-server mode: JWT access tokens verified against the issuer's JWKS. */
  readonly oauth?: GatewayOAuth;
  /** Per-client limits on tool calls. */
  readonly limits?: GatewayLimits;
  /** Largest request body in bytes (413 above). Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Bytes one client may leave unread (results, log messages, progress) before its notifications are
   * dropped and its results replaced by an error. Default 32 MiB.
   */
  readonly maxUnreadBytes?: number;
  /** How long `drain()` waits for in-flight calls, in ms. Default 30 000. */
  readonly drainTimeoutMs?: number;
  /** Most open 2025-11-25 sessions at once (503 above). Default 1000. */
  readonly maxSessions?: number;
  /** A 2025-11-25 session without a request for this long is closed (0: never). Default 30 min. */
  readonly sessionIdleMs?: number;
  /** Version reported in `serverInfo`. */
  readonly version?: string;
  /**
   * Routes upstream elicitation and sampling to the downstream client whose call caused them; the
   * same forwarder's handlers must be the bridge's `onElicitation` and `onSampling` (see forward.ts).
   */
  readonly forwarder?: RequestForwarder;
  /** SERVER spans and `mcp.server.operation.duration` per request (see `createTelemetry`); none without. */
  readonly telemetry?: Telemetry;
  /** Serve the admin tools (status, reload, restart) to clients whose profile allows it (see admin-tools.ts). */
  readonly adminTools?: boolean;
  /**
   * Bearer token of `GET /status`, `POST /reload`, `POST /restart/{server}` (never a client token's
   * job); without one these routes answer 404.
   */
  readonly adminToken?: string;
}

export interface Gateway {
  /** The MCP endpoint, e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly tracker: RequestTracker;
  /** Stop accepting, wait for in-flight calls (bounded by `drainTimeoutMs`), then close. */
  drain(): Promise<void>;
  /** Close at once. The bridge stays open: it belongs to the caller. */
  close(): Promise<void>;
}

/** Default idle time after which a 2025-11-25 session is closed. */
export const SESSION_IDLE_MS = 30 * 60_000;

/** After the last call settles, how long drain waits for its response to be written. */
const RESPONSE_FLUSH_MS = 2_000;

const METADATA_PATH = "/.well-known/oauth-protected-resource";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Serves the bridge's merged catalog as one MCP server over Streamable HTTP (both protocol eras). */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const host = options.host ?? "127.0.0.1";
  const loopback = LOOPBACK.has(host);
  const tokens = options.tokens ?? [];
  if (!LOOPBACK.has(host) && tokens.length === 0 && !options.oauth) {
    throw new ConfigError(
      ErrorCode.ConfigInvalid,
      `The gateway will not listen on ${host} without auth: configure bearer tokens or OAuth, or bind 127.0.0.1.`,
    );
  }
  const tracker = requestTracker(options.telemetry, {
    "network.transport": "tcp",
    "network.protocol.name": "http",
  });
  const endpoint = mcpEndpoint({
    bridge: options.bridge,
    tracker,
    version: options.version ?? packageInfo().version,
    loopback,
    limits: options.limits,
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    maxSessions: options.maxSessions ?? 1000,
    sessionIdleMs: options.sessionIdleMs ?? SESSION_IDLE_MS,
    maxUnreadBytes: options.maxUnreadBytes,
    forwarder: options.forwarder,
    adminTools: options.adminTools,
  });
  const { sessions } = endpoint;
  const auth = gatewayAuthenticator(tokens, options.oauth);
  // Known once listening; requests only arrive after that.
  let url = "";
  let draining = false;
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
  const route = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://gateway").pathname;
    if (path === "/healthz") return respond(res, 200, { status: "ok" });
    if (path === "/readyz") {
      const servers = options.bridge.servers();
      const ready = !draining && servers.some((s) => s.state === "connected");
      return respond(res, ready ? 200 : 503, { ready, draining, inFlight: tracker.inFlight });
    }
    if (options.oauth && (path === METADATA_PATH || path === `${METADATA_PATH}/mcp`)) {
      return respond(res, 200, protectedResourceMetadata(options.oauth, url));
    }
    if (isAdminRoute(path)) {
      return serveAdminRoute(options.bridge, options.adminToken, path, req, res, respond);
    }
    if (path !== "/mcp") return respond(res, 404, { error: "not found" });
    if (draining) return respond(res, 503, { error: "draining" }, { connection: "close" });
    const refusal = await auth.authorize(req);
    if (refusal) return respond(res, refusal.status, { error: "unauthorized" }, refusal.headers);
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
    await endpoint.serve(req, res);
  };
  const http = createServer((req, res) => {
    route(req, res).catch((error) => {
      if (!res.headersSent) respond(res, 500, { error: errorText(error) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  url = `http://${shownHost}:${address.port}/mcp`;
  auth.listening(url, `http://${shownHost}:${address.port}${METADATA_PATH}/mcp`);
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await endpoint.close();
    })();
    return closed;
  };
  return {
    url,
    tracker,
    close,
    async drain() {
      // Stop accepting: no new connections, idle keep-alive ones closed, a new request on a busy one gets 503.
      draining = true;
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      const deadline = Date.now() + (options.drainTimeoutMs ?? 30_000);
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      await Promise.race([tracker.idle(), bound]);
      clearTimeout(timer);
      // Let the last results reach their clients. Long-lived streams (subscriptions/listen) never end
      // by themselves, hence a short bound of its own.
      const flushBy = Math.min(deadline, Date.now() + RESPONSE_FLUSH_MS);
      while (active.size > 0 && Date.now() < flushBy) await new Promise((r) => setTimeout(r, 20));
      await close();
      await stopped;
    },
  };
}
