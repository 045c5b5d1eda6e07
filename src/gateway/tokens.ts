import { createHash, timingSafeEqual } from "node:crypto";
import type { GatewayProfile } from "./profile.js";

/** A static bearer token: the token itself, or its SHA-256 (`sha256:HEX`) so a config need not hold it. */
export interface GatewayToken {
  readonly token: string;
  /** A name for logs and metrics; never the token. */
  readonly client?: string;
  readonly profile?: GatewayProfile;
}

export interface TokenMatch {
  readonly client: string;
  readonly profile: GatewayProfile | undefined;
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

function storedDigest(token: string): Buffer {
  const hashed = /^sha256:([0-9a-fA-F]{64})$/.exec(token);
  return hashed?.[1] ? Buffer.from(hashed[1], "hex") : digest(token);
}

/**
 * Checks a presented bearer token against every configured one. Comparing fixed-length digests with
 * timingSafeEqual, and always walking the whole list, keeps the time independent of where they differ.
 */
export function tokenMatcher(tokens: readonly GatewayToken[]): (presented: string) => TokenMatch | undefined {
  const stored = tokens.map((t, i) => ({
    digest: storedDigest(t.token),
    match: { client: t.client ?? `token-${i + 1}`, profile: t.profile },
  }));
  return (presented) => {
    const given = digest(presented);
    let found: TokenMatch | undefined;
    for (const entry of stored) if (timingSafeEqual(entry.digest, given) && !found) found = entry.match;
    return found;
  };
}

/** The `Authorization: Bearer X` token of a request, if any. */
export function bearerOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match?.[1];
}
