/**
 * SDK internal: the Protocol class's private request tables `_responseHandlers`, `_progressHandlers`,
 * `_timeoutInfo` and `_requestHandlerAbortControllers` (each a Map keyed by message id). Checked
 * against @modelcontextprotocol/client, server and core 2.4.0.
 *
 * Why: those Maps see one insertion and one deletion per request, which keeps V8 rebuilding them and
 * promoting every request's objects (see util/id-table.ts); an IdTable behaves as a Map without that.
 * Bench (`node dist/bench/profile-calls.js bridge stdio 4000 N`, client CPU per warm call, median of
 * 5 alternated runs on the shared 2-core machine): 1 in flight 29.8 us with it, 28.6 us without; 8 in
 * flight 23.0 us with, 26.8 us without. The cost it removes appears once the tables are in the old
 * generation, as in a long-lived host: with a full GC after the warm-up (node --expose-gc, 8 in flight,
 * 3 alternated runs) 22.5 us with it and 24.7 us without (median of the last round), 25.5 against
 * 33.1 us in the first round after the GC. Kept.
 *
 * Detection: a field is replaced only while it holds an empty Map, so an SDK that renamed, retyped or
 * already filled one keeps what it has, and only the speed-up is lost.
 */
import { IdTable } from "../util/id-table.js";
import { sdkShimEnabled } from "./shims.js";

/**
 * The SDK Protocol's tables of in-flight requests (both directions), each keyed by message id:
 * pending responses, progress handlers, timeouts, and the abort controllers of requests being handled.
 */
export const PROTOCOL_REQUEST_TABLES = [
  "_responseHandlers",
  "_progressHandlers",
  "_timeoutInfo",
  "_requestHandlerAbortControllers",
] as const;

/** Gives an SDK client or server IdTables for its request tables (see above), unless the shim is off. */
export function useIdTables(protocol: object, fields: readonly string[] = PROTOCOL_REQUEST_TABLES): void {
  if (!sdkShimEnabled("id-tables")) return;
  const owner = protocol as Record<string, unknown>;
  for (const name of fields) {
    const table = owner[name];
    if (table instanceof Map && table.size === 0) owner[name] = new IdTable();
  }
}
