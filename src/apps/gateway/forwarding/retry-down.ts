import type { Bridge } from "../../../bridge/api.js";

type ServerStatus = ReturnType<Bridge["servers"]>[number];

/** Per bridge (or view of one), the reconnection under way of each server found down by a call. */
const attempts = new WeakMap<Bridge, Map<string, Promise<boolean>>>();

/**
 * A call for a tool of a server that is down tries the server again at once, as a library call by
 * `server/tool` or by its exposed name does (bridge/calls.ts), instead of failing until the
 * background retry (up to minutes later) brings it back. Every call that finds the server down while
 * an attempt is under way shares that attempt, so a burst of calls costs one reconnection. Only a
 * server that was connected before (its tools were known) is tried: one that never started (a broken
 * command) fails the same way again, and is left to its background retries. True once the server is
 * connected again; false when it still is not, or when the call's own request ended.
 */
export function retryDownServer(bridge: Bridge, down: ServerStatus, signal: AbortSignal): Promise<boolean> {
  if (down.connectMs === undefined) return Promise.resolve(false);
  const server = down.name;
  let byServer = attempts.get(bridge);
  if (!byServer) {
    byServer = new Map();
    attempts.set(bridge, byServer);
  }
  const servers = byServer;
  let attempt = servers.get(server);
  if (!attempt) {
    attempt = bridge
      // Connects the server on demand (as a library call's retry does) and lists its tools again.
      .refreshTools(server)
      .then(
        () => true,
        () => false,
      )
      .finally(() => servers.delete(server));
    servers.set(server, attempt);
  }
  if (signal.aborted) return Promise.resolve(false);
  const shared = attempt;
  return new Promise<boolean>((resolve) => {
    const aborted = () => resolve(false);
    signal.addEventListener("abort", aborted, { once: true });
    void shared.then((connected) => {
      signal.removeEventListener("abort", aborted);
      resolve(connected);
    });
  });
}
