import { openSignedText, signText } from "../../../util/signed-text.js";
import type { SessionRecord } from "./cluster-store.js";

/**
 * A session record as the store holds it. A record decides where a client's request (with its
 * `Authorization`) is forwarded and which credential may continue the session, so one written by
 * anyone but a replica (whoever else can write the store) must not be believed: with the cluster
 * secret it is signed for its session (util/signed-text.ts) and one that does not verify is no record.
 * Without a secret (no replica forwards then) it is `.<json>`, and only its shape is checked.
 */

const LABEL = "mcp-bridge session record v1";
const HASH_HEX = /^[0-9a-f]{64}$/;
/** Bounds on what a record may hold: a replica writes far less. */
const MAX_ID_CHARS = 128;
const MAX_URL_CHARS = 2_048;
const MAX_SUBSCRIPTIONS = 1_000;
const MAX_URI_CHARS = 4_096;

const contextOf = (sessionId: string) => `${LABEL}\0${sessionId}`;

/** `record` as the store's text for session `sessionId`. */
export function sealSessionRecord(
  sessionId: string,
  record: SessionRecord,
  secret: Uint8Array | undefined,
): string {
  const json = JSON.stringify(record);
  return secret ? signText(secret, contextOf(sessionId), json) : `.${json}`;
}

/** The record in `text` for session `sessionId`, or undefined when it is not one a replica wrote. */
export function openSessionRecord(
  sessionId: string,
  text: string,
  secret: Uint8Array | undefined,
): SessionRecord | undefined {
  const json = secret
    ? openSignedText(secret, contextOf(sessionId), text)
    : text.startsWith(".")
      ? text.slice(1)
      : undefined;
  if (json === undefined) return undefined;
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
  if (typeof identityHash !== "string" || !HASH_HEX.test(identityHash)) return undefined;
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
