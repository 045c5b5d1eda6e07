import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Text that only holders of a secret can have written: `<mac>.<text>`, the MAC an HMAC-SHA256 under
 * the secret over `context` (what the text is for, e.g. which server definition's tool list: a text
 * signed for one use is refused for another) and the exact text. For what replicas leave in a store
 * others may write too.
 */

const MAC_HEX = /^[0-9a-f]{64}$/;
/** What signing adds in front of a text: the MAC's 64 hex digits and the dot. */
export const SIGNATURE_CHARS = 65;

function macOf(secret: Uint8Array, context: string, text: string): string {
  return createHmac("sha256", secret).update(context).update("\0").update(text).digest("hex");
}

/** `text` signed for `context`. */
export function signText(secret: Uint8Array, context: string, text: string): string {
  return `${macOf(secret, context, text)}.${text}`;
}

/** The text `signed` holds if it was signed under `secret` for `context`; undefined otherwise. */
export function openSignedText(secret: Uint8Array, context: string, signed: string): string | undefined {
  const dot = signed.indexOf(".");
  if (dot !== SIGNATURE_CHARS - 1) return undefined;
  const mac = signed.slice(0, dot);
  const text = signed.slice(dot + 1);
  // The exact lower-case hex a signer writes: another spelling of the same bytes is refused too.
  if (!MAC_HEX.test(mac)) return undefined;
  return timingSafeEqual(Buffer.from(mac), Buffer.from(macOf(secret, context, text))) ? text : undefined;
}
