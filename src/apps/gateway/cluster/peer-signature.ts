import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/**
 * Requests one replica forwards to another are signed with the cluster secret: HMAC-SHA256 over the
 * method, path, time, sending replica, the client's own credential and session (hashed) and the body.
 * The signature proves "a replica of this cluster sent this, now, with this body": the receiver never
 * forwards it again (no loop) and a client cannot pass itself off as a replica. It grants nothing
 * else: the client's own Authorization travels with the request and the owner checks it as for any
 * request, so a forwarded request can never act with another client's credential.
 */

/** Header names of a forwarded request (lower case, as node:http gives them). */
export const PEER_HEADERS = {
  replica: "mcp-bridge-replica",
  time: "mcp-bridge-forward-time",
  signature: "mcp-bridge-forward-signature",
} as const;

/** How far a forwarded request's time may be from the receiver's clock (ms): replays are short-lived. */
export const PEER_CLOCK_SKEW_MS = 30_000;

export interface SignedRequest {
  readonly method: string;
  /** Path and query, as sent (`/mcp?x=1`). */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Uint8Array | undefined;
}

const sha256 = (value: string | Uint8Array) => createHash("sha256").update(value).digest("hex");

const single = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value.join(",") : (value ?? "");

function signatureOf(secret: Uint8Array, request: SignedRequest, replica: string, time: string): Buffer {
  const text = [
    "mcp-bridge-forward-v1",
    request.method.toUpperCase(),
    request.path,
    time,
    replica,
    sha256(single(request.headers.authorization)),
    single(request.headers["mcp-session-id"]),
    sha256(request.body ?? new Uint8Array()),
  ].join("\n");
  return createHmac("sha256", secret).update(text).digest();
}

/** The headers that sign `request` as sent by `replica` now. */
export function peerSignatureHeaders(
  secret: Uint8Array,
  request: SignedRequest,
  replica: string,
  now: number = Date.now(),
): Record<string, string> {
  const time = String(now);
  return {
    [PEER_HEADERS.replica]: replica,
    [PEER_HEADERS.time]: time,
    [PEER_HEADERS.signature]: signatureOf(secret, request, replica, time).toString("base64url"),
  };
}

/** Whether a request claims to come from a replica (it carries any of the forwarding headers). */
export function claimsPeer(headers: IncomingHttpHeaders): boolean {
  return (
    headers[PEER_HEADERS.signature] !== undefined ||
    headers[PEER_HEADERS.replica] !== undefined ||
    headers[PEER_HEADERS.time] !== undefined
  );
}

export type PeerCheck = { ok: true; replica: string } | { ok: false; reason: string };

/** Checks a request that claims to come from a replica: a good signature, made recently. */
export function verifyPeerRequest(
  secret: Uint8Array | undefined,
  request: SignedRequest,
  now: number = Date.now(),
): PeerCheck {
  if (!secret) return { ok: false, reason: "this replica has no cluster secret" };
  const replica = request.headers[PEER_HEADERS.replica];
  const time = request.headers[PEER_HEADERS.time];
  const signature = request.headers[PEER_HEADERS.signature];
  if (typeof replica !== "string" || typeof time !== "string" || typeof signature !== "string")
    return { ok: false, reason: "incomplete forwarding headers" };
  const sent = Number(time);
  if (!/^\d{1,16}$/.test(time) || Math.abs(now - sent) > PEER_CLOCK_SKEW_MS)
    return { ok: false, reason: "forwarding time out of range" };
  const expected = signatureOf(secret, request, replica, time);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "bad forwarding signature" };
  return { ok: true, replica };
}
