import type { JSONRPCMessage, JSONRPCResultResponse } from "@modelcontextprotocol/client";
import { parseJSONRPCMessage } from "@modelcontextprotocol/client";
import { sdkShimEnabled } from "./shims.js";

/*
 * Restates part of an SDK validator: which values the JSON-RPC message schema (and its result-response
 * schema) accepts unchanged, and the copy it returns for them. Checked against
 * @modelcontextprotocol/client and core 2.4.0; equality with the SDK's schema is tested as a property
 * (test/sdk/json-rpc-message.test.ts), so an SDK whose schema changed fails that test.
 * Bench: pending (measured with bench/profile-calls.ts, shims on vs off).
 *
 * With the `plain-messages` shim off (see shims.ts) every line goes through the SDK's schema.
 */

/**
 * One line of a stdio server, parsed as the SDK's `deserializeMessage` does (JSON.parse, then the
 * JSON-RPC message schema), with a shortcut for the message that dominates a busy connection: a
 * successful response whose result has no `_meta`. The schema is a union of four strict object
 * schemas tried in order, so on a response it first builds (and discards) the issues of the request and
 * notification schemas; the shortcut checks what that path would check for this one shape and builds
 * the same value. Every other message, and any response that is not exactly that shape, goes through
 * the SDK's schema. For every line the result equals the SDK's, and the shortcut throws whenever the
 * SDK does (tested as a property).
 */
export function deserializeLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return (sdkShimEnabled("plain-messages") && plainResultResponse(value)) || parseJSONRPCMessage(value);
}

/** Whether the SDK's JSON-RPC message schema accepts a parsed value (the same shortcut first). */
export function acceptedAsMessage(value: unknown): boolean {
  if (sdkShimEnabled("plain-messages") && isPlainResultResponse(value)) return true;
  try {
    parseJSONRPCMessage(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a value is `{"jsonrpc":"2.0","id":<string | safe integer>,"result":{...}}` with no other key
 * and no `_meta` in the result. The SDK's result-response schema (and so its JSON-RPC message schema)
 * accepts every such value; false says nothing, the schema decides the rest.
 */
export function isPlainResultResponse(value: unknown): value is JSONRPCResultResponse {
  if (!isObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== "jsonrpc" && key !== "id" && key !== "result") return false;
    keys++;
  }
  if (keys !== 3 || value.jsonrpc !== "2.0") return false;
  const id = value.id;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  const result = value.result;
  // `_meta` is parsed (its serverInfo may be dropped); `__proto__` as a key the schema's copy turns
  // into a prototype: both are rare, so the schema handles them. `_meta` is read, not only listed,
  // because the schema reads it too, even when it is inherited or not enumerable.
  if (!isObject(result) || result._meta !== undefined) return false;
  for (const key in result) if (key === "_meta" || key === "__proto__") return false;
  return true;
}

/**
 * A plain result response as the SDK's schema returns it: a copy of the envelope and of the result's
 * own keys (nested values shared, as the schema shares them). Undefined for anything else.
 */
function plainResultResponse(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainResultResponse(value)) return undefined;
  const result = value.result as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key in result) copy[key] = result[key];
  return { jsonrpc: "2.0", id: value.id, result: copy } as JSONRPCMessage;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
