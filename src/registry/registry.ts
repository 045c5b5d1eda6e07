import type { Tool } from "@modelcontextprotocol/client";
import type { ToolFilter } from "../config/model.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { matchesToolFilter } from "./filter.js";
import { baseToolName, MAX_TOOL_NAME_LENGTH, suffixedName } from "./naming.js";
import type { JsonSchema, ToolDefinition, ToolFilterCallback } from "./types.js";

export interface ToolRegistryOptions {
  readonly toolNameFormat: string;
  readonly descriptionPrefix: string;
  /** The host's own tool names; an MCP tool that would take one is skipped with a warning. */
  readonly reservedNames?: readonly string[];
  readonly filter?: ToolFilterCallback;
  readonly logger?: Logger;
}

interface Candidate {
  readonly server: string;
  readonly tool: Tool;
  readonly base: string;
}

/**
 * All tools of all servers under exposed names, as pure data.
 *
 * Naming is deterministic: a tool keeps its base name (`mcp_{server}_{tool}` normalized) unless that
 * base is longer than 64 characters or shared with another registered tool; then every tool sharing it
 * gets `_<hash>` of its ORIGINAL server and tool names. The result depends only on the set of tools
 * registered, never on the order in which servers came up. Names map back through a table, never by
 * splitting on `_`.
 */
export class ToolRegistry {
  readonly #options: ToolRegistryOptions;
  readonly #logger: Logger;
  readonly #reserved: ReadonlySet<string>;
  /** Per server, in the order servers were first seen, the accepted tools in server order. */
  readonly #servers = new Map<string, Candidate[]>();
  #byName = new Map<string, ToolDefinition>();
  #byOriginal = new Map<string, ToolDefinition>();
  #list: ToolDefinition[] = [];

  constructor(options: ToolRegistryOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#reserved = new Set(options.reservedNames ?? []);
  }

  /** Replaces a server's tools. Malformed entries are skipped with a warning naming server and tool. */
  setServerTools(
    server: string,
    toolFilter: ToolFilter,
    tools: readonly unknown[],
  ): { definitions: ToolDefinition[]; warnings: string[] } {
    const warnings: string[] = [];
    const accepted: Candidate[] = [];
    const seen = new Set<string>();
    for (const [index, raw] of tools.entries()) {
      const problem = toolProblem(raw);
      if (problem) {
        const label =
          typeof (raw as { name?: unknown })?.name === "string" ? `"${(raw as Tool).name}"` : `#${index}`;
        warnings.push(`Server "${server}": skipped tool ${label}: ${problem}`);
        continue;
      }
      const tool = raw as Tool;
      if (seen.has(tool.name)) {
        warnings.push(`Server "${server}": skipped duplicate tool "${tool.name}"`);
        continue;
      }
      seen.add(tool.name);
      if (!matchesToolFilter(toolFilter, tool.name)) continue;
      if (this.#options.filter && !this.#options.filter({ server, tool: tool.name, definition: tool }))
        continue;
      accepted.push({ server, tool, base: baseToolName(this.#options.toolNameFormat, server, tool.name) });
    }
    this.#servers.set(server, accepted);
    for (const warning of warnings) this.#logger.warn(warning, { server });
    warnings.push(...this.#rebuild());
    return { definitions: this.forServer(server), warnings };
  }

  /** Fixes the order in which servers' tools are listed (the config's order), whatever order they connect in. */
  declareServers(servers: readonly string[]): void {
    for (const server of servers) if (!this.#servers.has(server)) this.#servers.set(server, []);
  }

  removeServer(server: string): void {
    const had = (this.#servers.get(server)?.length ?? 0) > 0;
    // Keep the server's place in the order; it may come back.
    if (this.#servers.has(server)) this.#servers.set(server, []);
    if (had) this.#rebuild();
  }

  list(): ToolDefinition[] {
    return this.#list;
  }

  get(exposedName: string): ToolDefinition | undefined {
    return this.#byName.get(exposedName);
  }

  forServer(server: string): ToolDefinition[] {
    return this.#list.filter((definition) => definition.server === server);
  }

  /** An exposed name, or `server/tool` with the original names (either may contain `/`). */
  resolve(name: string): ToolDefinition | undefined {
    const exact = this.#byName.get(name);
    if (exact) return exact;
    for (let index = name.indexOf("/"); index !== -1; index = name.indexOf("/", index + 1)) {
      if (index === 0) continue;
      const found = this.#byOriginal.get(`${name.slice(0, index)}\0${name.slice(index + 1)}`);
      if (found) return found;
    }
    return undefined;
  }

  #rebuild(): string[] {
    const warnings: string[] = [];
    const all = [...this.#servers.values()].flat();
    const baseCount = new Map<string, number>();
    for (const candidate of all) baseCount.set(candidate.base, (baseCount.get(candidate.base) ?? 0) + 1);
    const previous = this.#byOriginal;
    const byName = new Map<string, ToolDefinition>();
    const byOriginal = new Map<string, ToolDefinition>();
    const list: ToolDefinition[] = [];
    for (const candidate of all) {
      const { server, tool, base } = candidate;
      const shared = (baseCount.get(base) ?? 0) > 1 || base.length > MAX_TOOL_NAME_LENGTH;
      let name = shared ? suffixedName(base, server, tool.name) : base;
      for (let hashLength = 8; byName.has(name) && hashLength <= 16; hashLength += 2) {
        name = suffixedName(base, server, tool.name, hashLength);
      }
      if (this.#reserved.has(name)) {
        warnings.push(
          `Server "${server}": skipped tool "${tool.name}": its name "${name}" is one of the host's own tools`,
        );
        continue;
      }
      const key = `${server}\0${tool.name}`;
      const old = previous.get(key);
      const fresh = this.#define(name, server, tool);
      const definition =
        old && old.name === name && old.description === fresh.description && sameTool(old, tool)
          ? old
          : fresh;
      byName.set(name, definition);
      byOriginal.set(key, definition);
      list.push(definition);
    }
    this.#byName = byName;
    this.#byOriginal = byOriginal;
    this.#list = list;
    for (const warning of warnings) this.#logger.warn(warning);
    return warnings;
  }

  #define(name: string, server: string, tool: Tool): ToolDefinition {
    // A function replacement: a server name may contain `$&` and the like.
    const prefix = this.#options.descriptionPrefix.replaceAll("{server}", () => server);
    return {
      name,
      server,
      tool: tool.name,
      description: `${prefix}${tool.description ?? ""}`.trimEnd() || tool.name,
      inputSchema: tool.inputSchema as JsonSchema,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    };
  }
}

function toolProblem(raw: unknown): string | undefined {
  if (!raw || typeof raw !== "object") return "not an object";
  const tool = raw as Record<string, unknown>;
  if (typeof tool.name !== "string" || tool.name.length === 0) return "it has no name";
  const schema = tool.inputSchema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema))
    return "its inputSchema is not an object";
  if (tool.description !== undefined && typeof tool.description !== "string")
    return "its description is not a string";
  return undefined;
}

/** Keeps definition objects stable across refreshes, so caches keyed on them (exports) stay warm. */
function sameTool(definition: ToolDefinition, tool: Tool): boolean {
  return (
    definition.inputSchema === tool.inputSchema ||
    JSON.stringify([
      definition.inputSchema,
      definition.outputSchema,
      definition.annotations,
      definition.title,
    ]) === JSON.stringify([tool.inputSchema, tool.outputSchema, tool.annotations, tool.title])
  );
}
