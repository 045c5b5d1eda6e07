import type { Bridge } from "../api.js";

/** Whether some server is still connecting (its tools may yet appear). */
export function someServerConnecting(bridge: Pick<Bridge, "servers">): boolean {
  return bridge.servers().some((s) => s.state === "connecting");
}

/**
 * Whether a listing answered now could miss tools that are coming: some server is still connecting
 * and has no cached list (a cached list is shown at once; the live one follows as a change).
 */
export function someListingPending(bridge: Pick<Bridge, "servers">): boolean {
  return bridge.servers().some((s) => s.state === "connecting" && s.catalog !== "cache");
}

/**
 * Resolves once no server is connecting without a cached list (someListingPending), after `maxMs`, or when `signal` aborts, whichever is first.
 * For faces that answer a listing once and have no `list_changed` to tell of tools that come later
 * (the gateway's REST listings, code mode's catalog) or whose clients list once at start (the
 * gateway's first `tools/list`: most hosts never list again), so they wait for servers still starting, but
 * never longer than `maxMs`: a server that hangs at its handshake must not hold them up.
 */
export function serversSettled(
  bridge: Pick<Bridge, "servers" | "on">,
  signal: AbortSignal | undefined,
  maxMs: number,
): Promise<void> {
  const connecting = () => someListingPending(bridge);
  if (!connecting() || signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      off();
      signal?.removeEventListener("abort", finish);
      resolve();
    };
    const off = bridge.on("serverStateChanged", () => {
      try {
        if (!connecting()) finish();
      } catch {
        // The bridge is closing: nothing more will connect.
        finish();
      }
    });
    const timer = setTimeout(finish, maxMs);
    signal?.addEventListener("abort", finish, { once: true });
  });
}
