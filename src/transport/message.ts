import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { parseJSONRPCMessage } from "@modelcontextprotocol/client";

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
  return plainResultResponse(value) ?? parseJSONRPCMessage(value);
}

/** Whether the SDK's JSON-RPC message schema accepts a parsed value (the same shortcut first). */
export function acceptedAsMessage(value: unknown): boolean {
  if (plainResultResponse(value)) return true;
  try {
    parseJSONRPCMessage(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * `{"jsonrpc":"2.0","id":<string | safe integer>,"result":{...}}` with no other key and no `_meta` in
 * the result: what the SDK's schema accepts and returns for it, a copy of the envelope and of the
 * result's own keys (nested values shared, as the schema shares them). Undefined for anything else.
 */
function plainResultResponse(value: unknown): JSONRPCMessage | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const message = value as Record<string, unknown>;
  let keys = 0;
  for (const key in message) {
    if (key !== "jsonrpc" && key !== "id" && key !== "result") return undefined;
    keys++;
  }
  if (keys !== 3 || message.jsonrpc !== "2.0") return undefined;
  const id = message.id;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  const result = message.result;
  if (typeof result !== "object" || result === null || Array.isArray(result)) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key in result) {
    // `_meta` is parsed (its serverInfo may be dropped); `__proto__` as a key the schema's copy turns
    // into a prototype: both are rare, so the schema handles them.
    if (key === "_meta" || key === "__proto__") return undefined;
    copy[key] = (result as Record<string, unknown>)[key];
  }
  return { jsonrpc: "2.0", id: id as string | number, result: copy } as JSONRPCMessage;
}
