import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { type LocalHttpServer, listen } from "./http-servers.js";

/**
 * A local OAuth-protected MCP server: protected-resource and authorization-server metadata, dynamic
 * client registration, an authorize endpoint that approves at once (redirecting to the client's
 * callback), a token endpoint that checks PKCE (S256), and an MCP endpoint that wants the token.
 */
export interface OAuthTestServer extends LocalHttpServer {
  readonly issuedTokens: string[];
  readonly registrations: number;
  /** Requests to the token endpoint with grant_type=refresh_token, answered or refused. */
  readonly refreshRequests: number;
  /** Refresh requests that presented a refresh token already rotated away (a reuse: no grace window). */
  readonly reusedRefreshTokens: number;
  /** MCP requests that carried an access token and were answered 401. */
  readonly refusedAccessTokens: number;
  /** Each `add` call, with the Authorization header it came with. */
  readonly toolCalls: { authorization: string; a: number; b: number }[];
  /** Every access token issued so far stops being accepted (as if they all expired). */
  expireAccessTokens(): void;
}

export async function startOAuthServer(): Promise<OAuthTestServer> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const issuedTokens: string[] = [];
  const toolCalls: { authorization: string; a: number; b: number }[] = [];
  // Rotating refresh tokens: each is good for one refresh, as an authorization server that detects
  // refresh-token reuse does it.
  const refreshTokens = new Set<string>();
  const expired = new Set<string>();
  const spentRefreshTokens = new Set<string>();
  let registrations = 0;
  let refreshRequests = 0;
  let reusedRefreshTokens = 0;
  let refusedAccessTokens = 0;
  const expireAccessTokens = () => {
    for (const token of issuedTokens) expired.add(token);
  };
  const issue = (res: ServerResponse) => {
    const token = `tok-${randomUUID()}`;
    const refresh = `ref-${randomUUID()}`;
    issuedTokens.push(token);
    refreshTokens.add(refresh);
    return json(res, 200, {
      access_token: token,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: refresh,
    });
  };
  let base = "";
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => resolve(body));
    });
  const mcp = async (req: IncomingMessage, res: ServerResponse) => {
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = new McpServer({ name: "protected", version: "1.0.0" });
    server.registerTool(
      "add",
      { description: "Add", inputSchema: z.object({ a: z.number(), b: z.number() }) },
      async ({ a, b }) => {
        toolCalls.push({ authorization: req.headers.authorization ?? "", a, b });
        return { content: [{ type: "text", text: String(a + b) }] };
      },
    );
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const server = await listen(
    async (req, res) => {
      const url = new URL(req.url ?? "/", base);
      switch (url.pathname) {
        case "/.well-known/oauth-protected-resource/mcp":
        case "/.well-known/oauth-protected-resource":
          return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
        case "/.well-known/oauth-authorization-server":
          return json(res, 200, {
            issuer: base,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            registration_endpoint: `${base}/register`,
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["none"],
          });
        case "/register": {
          registrations++;
          const body = JSON.parse(await readBody(req));
          return json(res, 201, {
            ...body,
            client_id: `client-${registrations}`,
            token_endpoint_auth_method: "none",
          });
        }
        case "/authorize": {
          const code = randomUUID();
          const redirectUri = url.searchParams.get("redirect_uri") ?? "";
          codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", redirectUri });
          const target = new URL(redirectUri);
          target.searchParams.set("code", code);
          const state = url.searchParams.get("state");
          if (state) target.searchParams.set("state", state);
          res.writeHead(302, { location: target.toString() }).end();
          return;
        }
        case "/token": {
          const params = new URLSearchParams(await readBody(req));
          if (params.get("grant_type") === "refresh_token") {
            refreshRequests++;
            const presented = params.get("refresh_token") ?? "";
            if (spentRefreshTokens.has(presented)) reusedRefreshTokens++;
            if (!refreshTokens.delete(presented)) {
              return json(res, 400, { error: "invalid_grant", error_description: "refresh token reused" });
            }
            spentRefreshTokens.add(presented);
            return issue(res);
          }
          const grant = codes.get(params.get("code") ?? "");
          const verifier = params.get("code_verifier") ?? "";
          const challenge = createHash("sha256").update(verifier).digest("base64url");
          if (!grant || grant.challenge !== challenge) return json(res, 400, { error: "invalid_grant" });
          codes.delete(params.get("code") ?? "");
          return issue(res);
        }
        case "/mcp": {
          const auth = req.headers.authorization ?? "";
          if (!issuedTokens.some((token) => auth === `Bearer ${token}` && !expired.has(token))) {
            if (auth !== "") refusedAccessTokens++;
            res.writeHead(401, {
              "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
            });
            res.end();
            return;
          }
          return mcp(req, res);
        }
        default:
          res.writeHead(404).end();
      }
    },
    "/mcp",
    // Clients here may wait on each other (a refresh lock) longer than Node's 5 s keep-alive, and a
    // loaded machine then hands them a socket the server is closing: keep idle sockets open longer.
    { keepAliveTimeoutMs: 60_000 },
  );
  base = new URL(server.url).origin;
  // Getters defined on the server itself: Object.assign would copy their values once.
  return Object.defineProperties(Object.assign(server, { issuedTokens, toolCalls, expireAccessTokens }), {
    registrations: { get: () => registrations },
    refreshRequests: { get: () => refreshRequests },
    reusedRefreshTokens: { get: () => reusedRefreshTokens },
    refusedAccessTokens: { get: () => refusedAccessTokens },
  }) as OAuthTestServer;
}
