import type * as Jose from "jose";
import { boundedFetch } from "../../../transport/bounded-fetch.js";
import { errorText } from "../../../util/text-of.js";
import { jwksUnreadable } from "../wire-errors.js";
import type { GatewayProfile } from "./profile.js";

/** OAuth 2.1 resource-server mode: JWT access tokens from one authorization server. */
export interface GatewayOAuth {
  /** The authorization server's issuer (`iss` must equal it); listed in the protected resource metadata. */
  readonly issuer: string;
  /** Where its signing keys are (JWKS). */
  readonly jwksUrl: string;
  /** The audience a token must name (`aud`); default: the gateway's `/mcp` URL. */
  readonly audience?: string;
  /** Profiles by client (`client_id`, else `azp`, else `sub` claim). */
  readonly profiles?: Readonly<Record<string, GatewayProfile>>;
  /** The profile of a client not in `profiles`; absent = everything. */
  readonly defaultProfile?: GatewayProfile;
}

export type JwtOutcome =
  | {
      readonly ok: true;
      readonly client: string;
      /** Who the caller is (issuer and subject): sessions, parked calls and limits are keyed by it. */
      readonly identity: string;
      readonly profile: GatewayProfile | undefined;
      readonly expiresAt?: number;
    }
  | { readonly ok: false; readonly reason: string };

/** A JWKS holds a few keys: a few KiB. Far more is a misconfigured or hostile issuer. */
export const MAX_JWKS_BYTES = 1024 * 1024;

/**
 * Reads the JWKS through the project's bounded fetch, whole, at most MAX_JWKS_BYTES once decoded: jose
 * would otherwise take any body the URL answers (a 300 MB one costs the gateway gigabytes).
 */
async function fetchJwks(url: string, init: RequestInit): Promise<Response> {
  const bounded = boundedFetch(fetch, { maxResponseBytes: MAX_JWKS_BYTES, tooLargeCode: 0 });
  try {
    const response = await bounded(url, init);
    const body = await response.text();
    return new Response(body, { status: response.status, headers: response.headers });
  } catch (error) {
    throw jwksUnreadable({ url, cause: error });
  }
}

let joseLoad: Promise<typeof Jose> | undefined;

/**
 * jose (46 modules), imported by the first gateway that verifies JWTs: one without OAuth never loads
 * it. A failed import rejects every verification with node's own error, naming the missing package.
 */
function loadJose(): Promise<typeof Jose> {
  joseLoad ??= import("jose");
  return joseLoad;
}

/** Checks signature (against the JWKS), issuer, audience and expiry; the JWKS is fetched and cached by jose. */
export function jwtVerifier(oauth: GatewayOAuth, audience: string): (token: string) => Promise<JwtOutcome> {
  const verifier = loadJose().then((jose) => ({
    jose,
    keys: jose.createRemoteJWKSet(new URL(oauth.jwksUrl), {
      timeoutDuration: 5_000,
      [jose.customFetch]: fetchJwks,
    }),
  }));
  // Reported by the first verification (below), not as an unhandled rejection before any request.
  verifier.catch(() => {});
  return async (token) => {
    const { jose, keys } = await verifier;
    const joseErrors = jose.errors;
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer: oauth.issuer,
        audience,
        requiredClaims: ["exp"],
      });
      const claim = payload.client_id ?? payload.azp ?? payload.sub;
      const client = typeof claim === "string" ? claim : "unknown";
      // The subject is who acts; a token without one (some client-credentials grants) acts as its client.
      const subject = payload.sub ?? (typeof claim === "string" ? claim : undefined);
      if (subject === undefined) return { ok: false, reason: "the token names no subject (sub) or client" };
      return {
        ok: true,
        client,
        // Its own namespace: no static token's identity (`token:...`) can equal it, whatever the names.
        identity: `oauth:${JSON.stringify([oauth.issuer, subject])}`,
        profile: oauth.profiles?.[client] ?? oauth.defaultProfile,
        expiresAt: payload.exp,
      };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: "the token has expired" };
      if (error instanceof joseErrors.JWTClaimValidationFailed) {
        return { ok: false, reason: `claim ${error.claim} is not valid for this resource` };
      }
      return { ok: false, reason: `the token could not be verified (${errorText(error)})` };
    }
  };
}

/** RFC 9728 protected resource metadata for the gateway. */
export function protectedResourceMetadata(oauth: GatewayOAuth, resource: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [oauth.issuer],
    bearer_methods_supported: ["header"],
    resource_name: "mcp-bridge gateway",
  };
}
