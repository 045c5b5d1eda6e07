/**
 * SDK internals: a connected transport's `onmessage` (the SDK Protocol's dispatch, replaced here), and
 * the Protocol's private `_responseHandlers`, `_progressHandlers` and `_cleanupTimeout` (settling a
 * pending request the way its `_onresponse` does). Checked against @modelcontextprotocol/client and
 * core 2.4.0.
 *
 * Why: the SDK's message handler runs its result-response schema on every response, and `_onresponse`
 * runs it again; that schema accepts every plain result response (see json-rpc-message.ts), so for
 * those the dispatch alone is what the SDK would do.
 * Bench: pending (measured with bench/profile-calls.ts, shims on vs off).
 *
 * Detection: installed only when the transport had no handler of its own (the SDK calls that one
 * first) and the tables are there with the shape used here; each response whose id is not a pending
 * numeric request still goes to `_onresponse`, which reports it as the SDK does.
 */
import type { JSONRPCResultResponse, Transport } from "@modelcontextprotocol/client";
import { isPlainResultResponse } from "./json-rpc-message.js";
import { sdkShimEnabled } from "./shims.js";

/** The SDK Protocol's request tables read here (private in its types). */
interface ProtocolTables {
  readonly _responseHandlers: MapLike<(response: JSONRPCResultResponse) => void> | undefined;
  readonly _progressHandlers: MapLike<unknown> | undefined;
  readonly _cleanupTimeout: ((id: number) => void) | undefined;
}

interface MapLike<V> {
  get(key: number): V | undefined;
  delete(key: number): boolean;
}

/**
 * Once `protocol` is connected over `transport`, sends plain successful responses straight to the
 * response dispatch; `fallback` is the protocol's own `_onresponse` (protected in the SDK's types, so
 * the subclass passes it), for a response this cannot settle.
 */
export function dispatchPlainResponses(
  protocol: object,
  transport: Transport,
  fallback: (response: JSONRPCResultResponse) => void,
): void {
  const dispatch = transport.onmessage;
  const tables = protocol as ProtocolTables;
  if (!sdkShimEnabled("plain-responses") || dispatch === undefined || !hasTables(tables)) return;
  transport.onmessage = (message, extra) => {
    if (!isPlainResultResponse(message)) dispatch(message, extra);
    else if (!settled(tables, message)) fallback(message);
  };
}

function hasTables(tables: ProtocolTables): boolean {
  const handlers = tables._responseHandlers as Partial<MapLike<unknown>> | undefined;
  return (
    typeof handlers?.get === "function" &&
    typeof handlers.delete === "function" &&
    typeof tables._cleanupTimeout === "function"
  );
}

/**
 * Settles the request a plain result response answers, as the SDK's `_onresponse` would: a numeric
 * id is never a `subscriptions/listen` one (the Client's override takes string ids), and the result
 * check `_onresponse` runs accepts every plain result response, so what is left is the dispatch
 * itself. False when the response is not for a pending request (or the tables are not what this
 * expects): the fallback then reports it.
 */
function settled(tables: ProtocolTables, response: JSONRPCResultResponse): boolean {
  const id = response.id;
  if (typeof id !== "number") return false;
  const handlers = tables._responseHandlers;
  const handler = handlers?.get(id);
  if (!handlers || typeof handler !== "function" || typeof tables._cleanupTimeout !== "function")
    return false;
  handlers.delete(id);
  tables._cleanupTimeout(id);
  tables._progressHandlers?.delete(id);
  handler(response);
  return true;
}
