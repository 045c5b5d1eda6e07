import type { IncomingMessage, ServerResponse } from "node:http";
import { type AuthInfo, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";
import { toAnthropicTools } from "../../../../adapters/anthropic.js";
import { toGeminiTools } from "../../../../adapters/gemini.js";
import { toMcpTools } from "../../../../adapters/mcp.js";
import { toOpenAITools } from "../../../../adapters/openai.js";
import { serversSettled } from "../../../../bridge/servers/servers-settled.js";
import {
  restDraining,
  restMethodNotAllowed,
  restRefusedHost,
  restRouteNotFound,
  restServerNotFound,
  restUnauthorized,
  restUnknownFormat,
} from "../../../../errors/index.js";
import type { Refusal } from "../../identity/authenticate.js";
import { type GatewayProfile, surfaceAllows } from "../../identity/profile.js";
import { HttpFailure, sendError, sendJson } from "./http-json.js";
import { openApiDocument } from "./openapi.js";
import { callTool, getPrompt, listPrompts, listResources, readResource } from "./rest-calls.js";
import { type RestOptions, type RestRequest, visibleTools } from "./rest-request.js";

type Handler = (request: RestRequest, name: string) => Promise<unknown> | unknown;

interface Route {
  readonly pattern: RegExp;
  readonly method: "GET" | "POST";
  readonly handler: Handler;
}

const FORMATS = {
  openai: toOpenAITools,
  anthropic: toAnthropicTools,
  gemini: toGeminiTools,
  mcp: (tools: Parameters<typeof toMcpTools>[0]) => ({ tools: toMcpTools(tools) }),
} as const;

const ROUTES: readonly Route[] = [
  { pattern: /^\/openapi\.json$/, method: "GET", handler: (r) => document(r, undefined) },
  {
    pattern: /^\/servers\/([^/]+)\/openapi\.json$/,
    method: "GET",
    handler: (r, server) => document(r, server),
  },
  { pattern: /^\/tools$/, method: "GET", handler: toolList },
  { pattern: /^\/tools\/([^/]+)$/, method: "POST", handler: callTool },
  { pattern: /^\/resources$/, method: "GET", handler: listResources },
  { pattern: /^\/resources\/read$/, method: "GET", handler: readResource },
  { pattern: /^\/prompts$/, method: "GET", handler: listPrompts },
  { pattern: /^\/prompts\/([^/]+)$/, method: "POST", handler: getPrompt },
];

/** The first path segments the REST face owns: anything under them is answered here (404 included). */
const OWNED = new Set(["openapi.json", "servers", "tools", "resources", "prompts"]);

/**
 * The REST/OpenAPI face of `serve --http`, beside `/mcp` on the same listener: the same bridge, the
 * same authentication (done by the gateway before `serve`), the same per-token profiles and the same
 * per-client limiter, answered as plain JSON.
 */
export function restRoutes(options: RestOptions) {
  return {
    /** Whether `path` belongs to the REST face. */
    owns(path: string): boolean {
      return OWNED.has(path.split("/")[1] ?? "");
    },
    /** A request `authorize` refused: 401 with its challenge, in the REST face's error shape. */
    refuse(res: ServerResponse, refusal: Refusal): void {
      sendError(res, new HttpFailure(refusal.status, restUnauthorized(), refusal.headers));
    },
    /** A request while the gateway drains: 503, the connection closed after it. */
    draining(res: ServerResponse): void {
      sendError(res, new HttpFailure(503, restDraining(), { connection: "close" }));
    },
    /** Answers one request (already authenticated: `req.auth` set when auth is on). */
    async serve(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse): Promise<void> {
      try {
        const url = new URL(req.url ?? "/", "http://gateway");
        refuseForeignHost(req, options.allowedHosts);
        const { route, name } = match(url.pathname, req.method ?? "GET");
        const profile = req.auth?.extra?.profile as GatewayProfile | undefined;
        const body = await route.handler({ req, res, url, profile, options }, name);
        if (body !== undefined) sendJson(res, 200, body);
      } catch (error) {
        sendError(res, error);
      }
    },
  };
}

function match(path: string, method: string): { route: Route; name: string } {
  const found = ROUTES.map((route) => ({ route, groups: route.pattern.exec(path) })).filter((m) => m.groups);
  if (found.length === 0) throw new HttpFailure(404, restRouteNotFound({ path }));
  const allowed = found.find((m) => m.route.method === method);
  if (!allowed) {
    const allow = found.map((m) => m.route.method);
    throw new HttpFailure(405, restMethodNotAllowed({ method, path, allow }), { allow: allow.join(", ") });
  }
  let name = allowed.groups?.[1] ?? "";
  try {
    name = decodeURIComponent(name);
  } catch {
    throw new HttpFailure(404, restRouteNotFound({ path }));
  }
  return { route: allowed.route, name };
}

/**
 * DNS rebinding: on a loopback bind, a web page whose name resolves to 127.0.0.1 must not reach the
 * gateway from the user's browser. The same SDK checks (and names) as `/mcp`.
 */
function refuseForeignHost(req: IncomingMessage, allowed: readonly string[] | undefined): void {
  if (!allowed) return;
  const host = validateHostHeader(req.headers.host, [...allowed]);
  const origin = validateOriginHeader(req.headers.origin, [...allowed]);
  const refused = !host.ok ? host : !origin.ok ? origin : undefined;
  if (refused) throw new HttpFailure(403, restRefusedHost({ detail: refused.message }));
}

/**
 * A REST listing waits (bounded by the gateway's `listWaitMs`, as a first `tools/list` is) for servers
 * still connecting: a REST client has no `list_changed` to learn of tools that come later (an OpenAPI
 * importer reads the document once), but a server hanging at its handshake must not hold it up.
 */
async function settled(request: RestRequest): Promise<void> {
  const hungUp = new AbortController();
  const onClose = () => hungUp.abort();
  request.res.once("close", onClose);
  await serversSettled(request.options.bridge, hungUp.signal, request.options.listWaitMs);
  request.res.off("close", onClose);
}

async function document(request: RestRequest, server: string | undefined) {
  const { bridge, version, secured } = request.options;
  await settled(request);
  let tools = visibleTools(request);
  if (server !== undefined) {
    // A server the profile hides is answered exactly as one that does not exist.
    const known = bridge.servers().some((s) => s.name === server);
    tools = tools.filter((t) => t.server === server);
    if (!known || (tools.length === 0 && !surfaceAllows(request.profile, server))) {
      throw new HttpFailure(404, restServerNotFound({ server }));
    }
  }
  const host = request.req.headers.host ?? "127.0.0.1";
  return openApiDocument({ tools, origin: `http://${host}`, version, secured, server });
}

async function toolList(request: RestRequest) {
  const format = request.url.searchParams.get("format") ?? "mcp";
  if (!Object.hasOwn(FORMATS, format)) {
    throw new HttpFailure(400, restUnknownFormat({ format, known: Object.keys(FORMATS) }));
  }
  await settled(request);
  return FORMATS[format as keyof typeof FORMATS](visibleTools(request));
}
