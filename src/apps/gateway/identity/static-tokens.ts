import { createHash, timingSafeEqual } from "node:crypto";
import { duplicateGatewayToken } from "../../../errors/gateway-errors.js";
import { authorizationCredential } from "../../../util/authorization.js";
import type { GatewayProfile } from "./profile.js";

/** A static bearer token: the token itself, or its SHA-256 (`sha256:HEX`) so a config need not hold it. */
export interface GatewayToken {
  readonly token: string;
  /** A name for logs and metrics; never the token. Unique among the tokens. */
  readonly client?: string;
  readonly profile?: GatewayProfile;
}

export interface TokenMatch {
  readonly client: string;
  /**
   * Who the caller is, for sessions, parked calls and limits: the token's digest, never its name (two
   * tokens must never share a session because someone gave them one name). Prefixed so that no OAuth
   * identity can equal it.
   */
  readonly identity: string;
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
 * Two entries with one name or one token are refused: either would leave it unclear who a caller is.
 */
export function tokenMatcher(tokens: readonly GatewayToken[]): (presented: string) => TokenMatch | undefined {
  const named = new Set<string>();
  for (const t of tokens) {
    if (t.client === undefined) continue;
    if (named.has(t.client)) throw duplicateGatewayToken({ what: `client name "${t.client}"` });
    named.add(t.client);
  }
  const digests = new Set<string>();
  const stored = tokens.map((t, i) => {
    const value = storedDigest(t.token);
    const hex = value.toString("hex");
    if (digests.has(hex)) throw duplicateGatewayToken({ what: `token (entry ${i + 1})` });
    digests.add(hex);
    return {
      digest: value,
      match: { client: t.client ?? unnamed(named, i), identity: `token:${hex}`, profile: t.profile },
    };
  });
  return (presented) => {
    const given = digest(presented);
    let found: TokenMatch | undefined;
    for (const entry of stored) if (timingSafeEqual(entry.digest, given) && !found) found = entry.match;
    return found;
  };
}

/** `token-N` for the N-th token without a name, unless a named token already took it. */
function unnamed(named: Set<string>, index: number): string {
  let name = `token-${index + 1}`;
  for (let n = 2; named.has(name); n++) name = `token-${index + 1}-${n}`;
  named.add(name);
  return name;
}

/** The `Authorization: Bearer X` token of a request, if any (kept under its old name for callers). */
export const bearerOf = (header: string | readonly string[] | undefined): string | undefined =>
  authorizationCredential(header, ["Bearer"]);
