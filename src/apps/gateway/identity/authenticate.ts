import type { IncomingMessage } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { type GatewayOAuth, jwtVerifier } from "./jwt-auth.js";
import type { GatewayProfile } from "./profile.js";
import { bearerOf, type GatewayToken, tokenMatcher } from "./static-tokens.js";

type AuthOutcome =
  | { ok: true; client: string; identity: string; profile: GatewayProfile | undefined; expiresAt?: number }
  | { ok: false; reason: string };

/** What a refused request is answered with: 401 and its `WWW-Authenticate` challenge. */
export interface Refusal {
  readonly status: 401;
  readonly headers: Record<string, string>;
}

/**
 * The gateway's auth: static bearer tokens first, then (in OAuth resource-server mode) JWTs verified
 * against the issuer's JWKS, whose audience defaults to the gateway's own URL (known once listening).
 */
export function gatewayAuthenticator(tokens: readonly GatewayToken[], oauth: GatewayOAuth | undefined) {
  const match = tokenMatcher(tokens);
  let verify: ReturnType<typeof jwtVerifier> | undefined;
  let metadataUrl = "";
  const authenticate = async (presented: string | undefined): Promise<AuthOutcome> => {
    if (presented === undefined) return { ok: false, reason: "no bearer token" };
    const found = match(presented);
    if (found) return { ok: true, ...found };
    if (verify) return verify(presented);
    return { ok: false, reason: "unknown token" };
  };
  return {
    /** Called once listening: the URLs the audience and the challenge name. */
    listening(url: string, metadata: string): void {
      metadataUrl = metadata;
      if (oauth) verify = jwtVerifier(oauth, oauth.audience ?? url);
    },
    /**
     * Sets `req.auth` (client name, identity, profile) for a valid token, or says how to refuse the request.
     * Without any token or OAuth configured, every request passes as the one anonymous client.
     */
    async authorize(req: IncomingMessage & { auth?: AuthInfo }): Promise<Refusal | undefined> {
      if (tokens.length === 0 && !verify) return undefined;
      const presented = bearerOf(req.headers.authorization);
      const outcome = await authenticate(presented);
      if (!outcome.ok) {
        const params = [
          'Bearer realm="mcp-bridge"',
          ...(oauth ? [`resource_metadata="${metadataUrl}"`] : []),
          ...(presented === undefined
            ? []
            : ['error="invalid_token"', `error_description="${outcome.reason.replace(/["\\\r\n]/g, " ")}"`]),
        ];
        return { status: 401, headers: { "www-authenticate": params.join(", ") } };
      }
      req.auth = {
        token: presented ?? "",
        clientId: outcome.client,
        scopes: [],
        expiresAt: outcome.expiresAt,
        extra: { profile: outcome.profile, identity: outcome.identity },
      };
      return undefined;
    },
  };
}

/**
 * Who sent a request, as sessions, parked calls and limits know it: the credential's identity set by
 * `authorize`, never the client's name. Without auth every caller is the one anonymous client.
 */
export function identityOf(auth: AuthInfo | undefined): string {
  const identity = auth?.extra?.["identity"];
  return typeof identity === "string" ? identity : "anonymous";
}

const connectionNumbers = new WeakMap<object, number>();
let connections = 0;

/**
 * Whom a request's tool calls count against in the per-client limits: its credential's identity; without
 * one (a loopback gateway without auth), its 2025-11-25 session, or else its connection, so that one
 * local client cannot use up every other local client's limits.
 */
export function limitKeyOf(req: IncomingMessage & { auth?: AuthInfo }): string {
  const identity = req.auth?.extra?.["identity"];
  if (typeof identity === "string") return identity;
  const session = req.headers["mcp-session-id"];
  if (typeof session === "string") return `anonymous session ${session}`;
  let number = connectionNumbers.get(req.socket);
  if (number === undefined) {
    number = ++connections;
    connectionNumbers.set(req.socket, number);
  }
  return `anonymous connection ${number}`;
}

/**
 * Who called, as the call policy's `caller` rules and the audit log name it: the client name the
 * gateway's own token list (or the JWT's client) gives the credential, which the client cannot choose;
 * its identity when it has no name; `anonymous` without auth.
 */
export function callerOf(auth: AuthInfo | undefined): string {
  return auth?.clientId || identityOf(auth);
}
