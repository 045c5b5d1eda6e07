import { createHmac, timingSafeEqual } from "node:crypto";
import type { SessionRecord } from "./cluster-store.js";

/**
 * A session record as the store holds it: `<mac>.<json>`, the MAC an HMAC-SHA256 under the cluster
 * secret over the session id and the exact JSON text. A record decides where a client's request (with
 * its `Authorization`) is forwarded, so one written by anyone but a replica (whoever else can write
 * the store) must not be believed: with a secret, a record whose MAC does not verify is no record.
 * Without one (no replica forwards then) the MAC part is empty and only the shape is checked.
 */

const LABEL = "mcp-bridge session record v1\0";
const MAC_HEX = /^[0-9a-f]{64}$/;
/** Bounds on what a record may hold: a replica writes far less. */
const MAX_ID_CHARS = 128;
const MAX_URL_CHARS = 2_048;
const MAX_SUBSCRIPTIONS = 1_000;
const MAX_URI_CHARS = 4_096;

function macOf(secret: Uint8Array, sessionId: string, json: string): string {
  return createHmac("sha256", secret).update(LABEL).update(sessionId).update("\0").update(json).digest("hex");
}

/** `record` as the store's text for session `sessionId`. */
export function sealSessionRecord(
  sessionId: string,
  record: SessionRecord,
  secret: Uint8Array | undefined,
): string {
  const json = JSON.stringify(record);
  return `${secret ? macOf(secret, sessionId, json) : ""}.${json}`;
}

/** The record in `text` for session `sessionId`, or undefined when it is not one a replica wrote. */
export function openSessionRecord(
  sessionId: string,
  text: string,
  secret: Uint8Array | undefined,
): SessionRecord | undefined {
  const dot = text.indexOf(".");
  if (dot < 0) return undefined;
  const mac = text.slice(0, dot);
  const json = text.slice(dot + 1);
  if (secret) {
    if (!MAC_HEX.test(mac)) return undefined;
    const expected = macOf(secret, sessionId, json);
    if (!timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return undefined;
  }
  return recordShape(raw);
}

const isText = (value: unknown, max: number): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= max;

/** `raw` as a record when every field has the shape a replica writes. */
function recordShape(raw: unknown): SessionRecord | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const { owner, ownerUrl, identityHash, init, logLevel, subscriptions } = raw as Record<string, unknown>;
  if (!isText(owner, MAX_ID_CHARS) || !isText(ownerUrl, MAX_URL_CHARS)) return undefined;
  const url = URL.parse(ownerUrl);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  if (typeof identityHash !== "string" || !MAC_HEX.test(identityHash)) return undefined;
  if (!init || typeof init !== "object" || Array.isArray(init)) return undefined;
  if (logLevel !== undefined && !isText(logLevel, 32)) return undefined;
  if (
    !Array.isArray(subscriptions) ||
    subscriptions.length > MAX_SUBSCRIPTIONS ||
    !subscriptions.every((uri) => isText(uri, MAX_URI_CHARS))
  )
    return undefined;
  return {
    owner,
    ownerUrl,
    identityHash,
    init: init as Record<string, unknown>,
    logLevel,
    subscriptions: subscriptions as string[],
  };
}
