import type { ToolEntry } from "../bridge/api.js";
import { uniqueIdentifiers } from "./identifiers.js";
import { docLine, schemaToType } from "./schema-types.js";

/**
 * The typed API a program calls: `tools.<server>.<tool>(args)`, declared in TypeScript from each
 * tool's schemas. Built once per tool list (see api-cache.ts); deterministic: the same catalog gives
 * the same text, whatever order its servers listed their tools in.
 */

/** One tool in the API: where the program finds it and the entry that runs it. */
export interface ApiTool {
  /** The server's identifier: `tools.<namespace>`. */
  readonly namespace: string;
  /** The tool's identifier within its namespace. */
  readonly fn: string;
  /** `namespace.fn`: how search and describe name it. */
  readonly path: string;
  readonly entry: ToolEntry;
}

export interface CodeModeApi {
  /** Sorted by path. */
  readonly tools: readonly ApiTool[];
  /** By `namespace.fn`, by exposed name and by `server/tool`. */
  find(name: string): ApiTool | undefined;
  /** One line: `tools.ns.fn(args: {...}): Promise<T>` with the first sentence of its description. */
  signature(tool: ApiTool): string;
  /** Full declarations of these tools (every tool by default), with the shared result type. */
  declarations(tools?: readonly ApiTool[]): string;
}

/** What a tool without an output schema resolves to; declared once above the namespaces. */
export const RESULT_TYPE = `/** What a tool without an output schema resolves to. A failed call throws an Error instead. */
interface ToolResult {
  /** The result as text (what a model would read). */
  text: string;
  /** Always false here: failures throw. */
  isError: boolean;
  structuredContent?: unknown;
  /** MCP content blocks: { type: "text", text }, { type: "image", data, mimeType }, ... */
  content: { type: string; [key: string]: unknown }[];
}`;

/** Widest args type shown on one line; past it the signature says `{...}` (describe_tools has all). */
const SIGNATURE_ARGS_CHARS = 200;

export function buildApi(entries: readonly ToolEntry[]): CodeModeApi {
  const namespaces = uniqueIdentifiers(entries.map((entry) => entry.server || "bridge"));
  const byServer = new Map<string, ToolEntry[]>();
  for (const entry of entries) {
    const server = entry.server || "bridge";
    byServer.set(server, [...(byServer.get(server) ?? []), entry]);
  }
  const tools: ApiTool[] = [];
  for (const [server, list] of byServer) {
    const namespace = namespaces.get(server) as string;
    const fns = uniqueIdentifiers(list.map((entry) => entry.tool));
    for (const entry of list) {
      const fn = fns.get(entry.tool) as string;
      tools.push({ namespace, fn, path: `${namespace}.${fn}`, entry });
    }
  }
  tools.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const index = new Map<string, ApiTool>();
  for (const tool of tools) {
    for (const key of [
      tool.path,
      `tools.${tool.path}`,
      tool.entry.name,
      `${tool.entry.server}/${tool.entry.tool}`,
    ]) {
      if (!index.has(key)) index.set(key, tool);
    }
  }
  return {
    tools,
    find: (name) => index.get(name.trim()),
    signature,
    declarations: (chosen = tools) => declarationsOf(chosen),
  };
}

function argsParameter(entry: ToolEntry, indent: string): string {
  const required = Array.isArray(entry.inputSchema.required) && entry.inputSchema.required.length > 0;
  return `args${required ? "" : "?"}: ${schemaToType(entry.inputSchema, indent)}`;
}

function returnType(entry: ToolEntry, indent: string): string {
  return entry.outputSchema ? `Promise<${schemaToType(entry.outputSchema, indent)}>` : "Promise<ToolResult>";
}

function signature(tool: ApiTool): string {
  let args = argsParameter(tool.entry, "").replace(/\s*\n\s*/g, " ");
  args = args.replace(/\/\*\*.*?\*\/ /g, "");
  if (args.length > SIGNATURE_ARGS_CHARS) args = `args: {...}`;
  const returns = tool.entry.outputSchema ? "Promise<{...}>" : "Promise<ToolResult>";
  const summary = docLine(firstSentence(tool.entry.title ?? tool.entry.description), 160);
  return `tools.${tool.path}(${args}): ${returns}${summary ? ` // ${summary}` : ""}`;
}

function firstSentence(text: string | undefined): string {
  if (!text) return "";
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim());
  return match ? match[0] : text;
}

function declarationsOf(tools: readonly ApiTool[]): string {
  const lines = [RESULT_TYPE, "", "declare namespace tools {"];
  let current: string | undefined;
  for (const tool of tools) {
    if (tool.namespace !== current) {
      if (current !== undefined) lines.push("  }");
      current = tool.namespace;
      const server = tool.entry.server;
      lines.push(`  /** Tools of the server "${docLine(server || "bridge", 100)}". */`);
      lines.push(`  namespace ${current} {`);
    }
    const doc = [tool.entry.title, tool.entry.description].map((text) => docLine(text, 2000)).filter(Boolean);
    if (doc.length > 0) lines.push(`    /** ${[...new Set(doc)].join(" — ")} */`);
    lines.push(
      `    function ${tool.fn}(${argsParameter(tool.entry, "    ")}): ${returnType(tool.entry, "    ")};`,
    );
  }
  if (current !== undefined) lines.push("  }");
  lines.push("}");
  return lines.join("\n");
}
