import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { Bridge, ToolEntry } from "../../../bridge/api.js";
import type { ToolResult } from "../../../results/tool-result.js";
import { definedOnly } from "../../../util/defined.js";
import { upstreamOf } from "../../../util/upstream.js";

/**
 * Tools and their results as the upstream server sent them: a client of the gateway gets what it
 * would get from the server itself (`_meta` such as MCP Apps' `ui.resourceUri`, `icons`, `title`,
 * `execution`, `outputSchema`, vendor keys), except the name, which the gateway must make unique.
 * The upstream's own description is served: a host shows each MCP server's tools under that server,
 * so the library's description prefix would only repeat it.
 */

/**
 * The `_meta` key naming where a served tool comes from: `{ "server": ..., "tool": ... }`, the config's
 * server name and the tool's name on that server. A host cannot tell them from the exposed name alone
 * (`a_b_c` may be server `a_b`'s tool `c` or server `a`'s tool `b_c`). Prefixed as the spec asks of
 * `_meta` keys that are not MCP's own (reverse DNS of the project's home, a label, a slash).
 */
export const ORIGIN_META_KEY = "io.github.mcp-bridge/origin";

/**
 * A tool of the merged catalog under its exposed name, every other field as its server listed it, and
 * its origin added to `_meta` (ORIGIN_META_KEY).
 */
export function forwardedTool(entry: ToolEntry): Tool {
  const original = upstreamOf<Tool>(entry);
  if (original) {
    const origin = { server: entry.server, tool: entry.tool };
    return { ...original, name: entry.name, _meta: { ...original._meta, [ORIGIN_META_KEY]: origin } };
  }
  // The bridge's own tools (resourceTools) have no upstream: served as the library describes them.
  // A wire message says nothing of what it does not have.
  return definedOnly({
    name: entry.name,
    title: entry.title,
    description: entry.description,
    inputSchema: entry.inputSchema as Tool["inputSchema"],
    outputSchema: entry.outputSchema as Tool["outputSchema"],
    annotations: entry.annotations,
    icons: entry.icons === undefined ? undefined : [...entry.icons],
  }) as Tool;
}

/**
 * What the client gets for a call: the upstream result unchanged (content blocks, `structuredContent`,
 * `isError`, `_meta`, whether the tool succeeded or reported an error). A failure of the gateway's own
 * (timeout, crash, server unavailable) has no upstream result: its error result says what happened
 * and what to do.
 */
export function forwardedResult(result: ToolResult): CallToolResult {
  const original = upstreamOf<CallToolResult>(result);
  // A result without a content array (a task's, an odd server's) gets the one the library read from it.
  if (original)
    return Array.isArray(original.content) ? original : { ...original, content: [...result.content] };
  return definedOnly({
    content: [...result.content],
    isError: result.isError,
    structuredContent: result.structuredContent as CallToolResult["structuredContent"],
  }) as CallToolResult;
}

/**
 * A result as the library gives it to a model (`GatewayOptions.llmResults`, a profile's `llmResults`):
 * one text block with the bridge's text (images described, already cut at `maxChars` with the
 * truncation marker), `isError` kept, and `structuredContent` kept unless its JSON alone is over
 * `maxChars` (a cap that is not a positive number keeps it).
 */
export function modelResult(result: ToolResult, maxChars: number): CallToolResult {
  // A 2026-07-28 upstream's `input_required` answer is a round of questions for the client (see
  // upstream-rounds.ts), not a result: passed on as it came, or the round could not go on.
  const original = upstreamOf<{ resultType?: unknown }>(result);
  if (original?.resultType !== undefined && original.resultType !== "complete")
    return forwardedResult(result);
  const structured = result.structuredContent;
  const fits =
    structured !== undefined && (!(maxChars > 0) || (JSON.stringify(structured)?.length ?? 0) <= maxChars);
  return definedOnly({
    content: [{ type: "text" as const, text: result.text }],
    isError: result.isError ? true : undefined,
    structuredContent: fits ? (structured as CallToolResult["structuredContent"]) : undefined,
  }) as CallToolResult;
}

/** The result cap of `server`'s calls as the bridge applies it: the server's own, else the settings'. */
export function maxResultCharsOf(bridge: Bridge, server: string): number {
  const config = bridge.config;
  return config.servers.find((s) => s.name === server)?.maxResultChars ?? config.settings.maxResultChars;
}

/** The MCP Apps UI resource a tool names (`_meta.ui.resourceUri`, or the older `_meta["ui/resourceUri"]`). */
function uiResourceUri(tool: Tool | undefined): string | undefined {
  const meta = tool?._meta as Record<string, unknown> | undefined;
  const ui = meta?.ui as { resourceUri?: unknown } | undefined;
  const uri = ui?.resourceUri ?? meta?.["ui/resourceUri"];
  return typeof uri === "string" ? uri : undefined;
}

/**
 * The servers whose visible tools name `uri` as their UI: a server need not list its `ui://`
 * resources, and the client must still be able to read the one a tool points at.
 */
export function uiResourceOwners(tools: readonly ToolEntry[], uri: string): string[] {
  return [...new Set(tools.filter((t) => uiResourceUri(upstreamOf<Tool>(t)) === uri).map((t) => t.server))];
}
