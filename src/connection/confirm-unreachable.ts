import type { Session } from "./session.js";

/**
 * Longest the ping that confirms a transport error may take. A server that is really gone refuses
 * the connection at once; one that is alive answers a ping within this; one that does neither within
 * it is taken for gone, as a failed health check would.
 */
export const CONFIRM_PING_MS = 5_000;

/** Sessions whose reachability a ping is confirming now: one ping for a burst of errors. */
const confirming = new WeakSet<Session>();

/**
 * A transport error outside any request (a notification's POST that failed, the standalone SSE stream
 * giving up) may be one broken socket of a live server: `unreachable` runs only once a bounded ping
 * of the same session fails too. While a ping is under way, further errors of the session add none.
 */
export function confirmUnreachable(session: Session, unreachable: (pingError: unknown) => void): void {
  if (confirming.has(session) || session.retired || session.dead) return;
  confirming.add(session);
  session.client.ping({ timeout: CONFIRM_PING_MS }).then(
    () => confirming.delete(session),
    (pingError: unknown) => {
      confirming.delete(session);
      unreachable(pingError);
    },
  );
}
