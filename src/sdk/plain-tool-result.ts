/**
 * Restates what the SDK's 2025-era `tools/call` result schema returns for the shape nearly every tool
 * answers with (text blocks, optionally isError): the SDK validates a result with a zod schema that
 * copies it; for that shape the copy is built here by hand. Anything else goes through the SDK's own
 * validation (the client's `_wireCodec()`, a protected member subclasses may call). Checked against
 * @modelcontextprotocol/client and core 2.4.0; equality with the SDK's validation is tested as a
 * property (test/sdk/session-client.test.ts), so an SDK whose schema changed fails that test.
 * Bench (`node dist/bench/profile-calls.js bridge stdio|http 3000 N`, client CPU per warm call, every
 * other shim on; 2 passes on the shared 2-core machine): stdio 1 in flight 26 / 57 us with it, 62 / 73 us
 * without; stdio 8 in flight 37 / 40 us with, 54 / 38 us without; HTTP 1 in flight 259 / 211 us with,
 * 301 / 250 us without. Kept.
 *
 * Used only while the shim is on (see shims.ts): off, a call goes through the SDK's `callTool`.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { sdkShimEnabled } from "./shims.js";

/** Whether plain results may be validated here (see above). */
export function plainToolResultsEnabled(): boolean {
  return sdkShimEnabled("plain-tool-result");
}

/**
 * `{ content: [{ type: "text", text }...], isError? }` with no other key anywhere: the copy the era's
 * schema returns for it (it copies the result object, the array and each block). Undefined otherwise.
 */
export function plainToolResult(value: unknown): CallToolResult | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const result = value as Record<string, unknown>;
  let keys = 0;
  for (const key in result) {
    if (key !== "content" && key !== "isError") return undefined;
    keys++;
  }
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const isError = result.isError;
  if (keys === 2 && typeof isError !== "boolean") return undefined;
  const blocks: { type: "text"; text: string }[] = new Array(content.length);
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as Record<string, unknown> | null;
    if (typeof block !== "object" || block === null || Array.isArray(block)) return undefined;
    let blockKeys = 0;
    for (const key in block) {
      if (key !== "type" && key !== "text") return undefined;
      blockKeys++;
    }
    const text = block.text;
    if (blockKeys !== 2 || block.type !== "text" || typeof text !== "string") return undefined;
    blocks[i] = { type: "text", text };
  }
  return keys === 2 ? { content: blocks, isError: isError as boolean } : { content: blocks };
}
