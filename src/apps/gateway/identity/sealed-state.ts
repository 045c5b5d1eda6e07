import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * The `requestState` tokens the gateway hands a 2026-07-28 client between the rounds of a tool call,
 * sealed with AES-256-GCM (authenticated encryption): the client can neither read nor change one, and
 * any gateway replica holding the same keys can open it. Format (ASCII, no padding):
 *
 *     mcpb1.<kid>.<base64url(iv[12] ‖ ciphertext ‖ tag[16])>
 *
 * The key id is in the clear (it picks the key) and is bound as additional authenticated data, so a
 * token re-labelled with another kid fails to open. The plaintext is the JSON of `SealedRound`: whom
 * the token was given to (a hash of the credential's identity), which call it continues (tool name
 * and a hash of the arguments), until when (the input timeout), a random nonce, and what the round
 * carries (a call parked on a replica, or an upstream's own state for a stateless resume).
 */

const PREFIX = "mcpb1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const STATE_KEY_BYTES = 32;
/** A key id: short, URL-safe, without the `.` that separates the token's parts. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface StateKey {
  readonly kid: string;
  readonly key: Buffer;
}

/** The keys of every replica: the first seals, every one opens (rotation by key id). */
export interface StateKeys {
  readonly sealing: StateKey;
  readonly opening: ReadonlyMap<string, Buffer>;
}

/** The keys of one process alone (no keys file): a token opens only on the replica that sealed it. */
export function processStateKeys(): StateKeys {
  const sealing = { kid: `p${randomBytes(6).toString("hex")}`, key: randomBytes(STATE_KEY_BYTES) };
  return { sealing, opening: new Map([[sealing.kid, sealing.key]]) };
}

/** A gateway replica as another one reaches it. */
export interface ReplicaAddress {
  readonly id: string;
  /** Its advertised `/mcp` URL. */
  readonly url: string;
}

/** A call parked on the replica that holds its upstream connection. */
export interface ParkedRound {
  readonly kind: "parked";
  /** The parked call's id in its replica's table. */
  readonly id: string;
  /** The replica holding it (cluster mode), so another one can forward the retry there. */
  readonly replica?: ReplicaAddress | undefined;
}

/** A 2026-07-28 upstream's own round: nothing is parked, any replica resumes it. */
export interface UpstreamRound {
  readonly kind: "upstream";
  /** The upstream's `requestState`, echoed back to it byte for byte. */
  readonly state?: string;
  /** What the upstream asked, for checking the client's answers' keys. */
  readonly keys: readonly string[];
  /** Answers the gateway gave itself (questions this client cannot be asked), sent with the client's. */
  readonly answered?: Readonly<Record<string, unknown>>;
}

export interface SealedRound {
  /** Hash of the credential's identity (see credentialHash). */
  readonly credential: string;
  /** Hash of the tool name and its arguments (see callHash). */
  readonly call: string;
  /** Epoch ms after which the token is refused. */
  readonly expires: number;
  /** Random: two tokens of the same round never look alike. */
  readonly nonce: string;
  readonly round: ParkedRound | UpstreamRound;
}

export type OpenFailure = "unreadable" | "unknownKey" | "otherCredential" | "otherCall" | "expired";

export type Opened = { ok: true; sealed: SealedRound } | { ok: false; why: OpenFailure };

const digest = (text: string) => createHash("sha256").update(text).digest("base64url");

/** What a token is bound to for a caller: never the identity itself (it may be a token's hash or a JWT subject). */
export function credentialHash(identity: string): string {
  return digest(`credential\0${identity}`);
}

/** What a token is bound to for a call: the tool's name and its arguments (keys in a stable order). */
export function callHash(tool: string, args: unknown): string {
  return digest(`call\0${tool}\0${stableJson(args ?? {})}`);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Seals `round` for this caller and call, valid `ttlMs` from `now`. */
export function sealRound(
  keys: StateKeys,
  bound: { credential: string; call: string },
  round: SealedRound["round"],
  ttlMs: number,
  now = Date.now(),
): string {
  const sealed: SealedRound = {
    credential: bound.credential,
    call: bound.call,
    expires: now + ttlMs,
    nonce: randomBytes(16).toString("base64url"),
    round,
  };
  const { kid, key } = keys.sealing;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(`${PREFIX}.${kid}`));
  const body = Buffer.concat([cipher.update(JSON.stringify(sealed), "utf8"), cipher.final()]);
  const sealedBytes = Buffer.concat([iv, body, cipher.getAuthTag()]);
  return `${PREFIX}.${kid}.${sealedBytes.toString("base64url")}`;
}

/**
 * The round a token seals, not checked against a caller or call (only that it is ours and not
 * expired): enough to tell which replica holds its parked call, which then checks it in full.
 */
export function peekRound(keys: StateKeys, token: string, now = Date.now()): SealedRound | undefined {
  const opened = openRound(keys, token, undefined, now);
  return opened.ok ? opened.sealed : undefined;
}

/**
 * Opens a token for this caller and call at `now`: the round, or why it is refused. Anything that is
 * not a token this gateway's keys sealed (malformed, tampered, truncated) is `unreadable`.
 */
export function openRound(
  keys: StateKeys,
  token: string,
  bound: { credential: string; call: string } | undefined,
  now = Date.now(),
): Opened {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== PREFIX) return { ok: false, why: "unreadable" };
  const [, kid = "", data = ""] = parts;
  if (!KEY_ID_PATTERN.test(kid)) return { ok: false, why: "unreadable" };
  const key = keys.opening.get(kid);
  if (!key) return { ok: false, why: "unknownKey" };
  const bytes = Buffer.from(data, "base64url");
  // base64url decoding skips what is not base64: a token must round-trip exactly.
  if (bytes.length < IV_BYTES + TAG_BYTES + 2 || bytes.toString("base64url") !== data) {
    return { ok: false, why: "unreadable" };
  }
  let sealed: SealedRound;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(`${PREFIX}.${kid}`));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    sealed = JSON.parse(plain.toString("utf8")) as SealedRound;
  } catch {
    return { ok: false, why: "unreadable" };
  }
  // Checked in this order so a thief learns nothing about the call from the answer.
  if (bound && sealed.credential !== bound.credential) return { ok: false, why: "otherCredential" };
  if (bound && sealed.call !== bound.call) return { ok: false, why: "otherCall" };
  if (!(now <= sealed.expires)) return { ok: false, why: "expired" };
  return { ok: true, sealed };
}
