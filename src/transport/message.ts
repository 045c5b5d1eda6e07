import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { parseJSONRPCMessage } from "@modelcontextprotocol/client";

/**
 * One line of a stdio server, parsed as the SDK's `deserializeMessage` does: JSON.parse, then the
 * JSON-RPC message schema. (A hand-written check for plain result responses used to skip the schema;
 * it saved about 1 us of a 25-30 us call, which the bench could not tell from noise: removed.)
 */
export function deserializeLine(line: string): JSONRPCMessage {
  return parseJSONRPCMessage(JSON.parse(line));
}
