import type { ResolvedConfig } from "../config/model.js";
import { ToolRegistry } from "../registry/registry.js";
import type { ToolDefinition, ToolFilterCallback } from "../registry/types.js";
import { ToolSearchIndex, type ToolSearchOptions } from "../search/index.js";
import type { Logger } from "../util/logger.js";
import { BRIDGE_TOOL_SERVER, resourceToolDefinitions } from "./resource-tools.js";

export interface ToolCatalogOptions {
  /** The bridge's current config: a reload replaces it, and the catalog follows its settings. */
  readonly config: () => ResolvedConfig;
  readonly reservedToolNames: readonly string[];
  readonly toolFilter: ToolFilterCallback | undefined;
  /** The host's `resourceTools` option; undefined defers to the config's setting. */
  readonly resourceTools: boolean | undefined;
  readonly logger: Logger;
}

/**
 * The merged tool list the host sees: the registry of every server's tools (named by the settings'
 * format), the bridge's own opt-in resource tools, and the search index over them, rebuilt only when
 * the tools change.
 */
export class ToolCatalog {
  readonly #options: ToolCatalogOptions;
  #registry: ToolRegistry;
  #searchIndex: { list: readonly ToolDefinition[]; index: ToolSearchIndex<ToolDefinition> } | undefined;
  #resourceToolCache: { format: string; definitions: ToolDefinition[] } | undefined;

  constructor(options: ToolCatalogOptions) {
    this.#options = options;
    this.#registry = this.#newRegistry();
  }

  get registry(): ToolRegistry {
    return this.#registry;
  }

  /** Settings changed (name format, description prefix): every server's tools are named afresh. */
  renew(): void {
    this.#registry = this.#newRegistry();
  }

  /** The servers' tools (of one server with `server`), then the bridge's own. */
  list(server?: string): ToolDefinition[] {
    const definitions = server === undefined ? this.#registry.list() : this.#registry.forServer(server);
    const own = this.#resourceTools().filter((d) => server === undefined || server === d.server);
    return [...definitions, ...own];
  }

  /** The servers' tools that best match a task described in words (or a tool's name), best first. */
  search(query: string, options: ToolSearchOptions): ToolDefinition[] {
    const definitions = this.#registry.list();
    // The registry keeps one list object until its tools change, so the index is rebuilt only then.
    let index = this.#searchIndex?.list === definitions ? this.#searchIndex.index : undefined;
    if (!index) {
      index = new ToolSearchIndex(definitions);
      this.#searchIndex = { list: definitions, index };
    }
    return index.search(query, options);
  }

  /** A tool by its exposed name. */
  get(name: string): ToolDefinition | undefined {
    return this.#registry.get(name) ?? this.resourceTool(name);
  }

  /** A tool by exposed name or `server/tool`. */
  resolve(name: string): ToolDefinition | undefined {
    return this.#registry.resolve(name) ?? this.resourceTool(name);
  }

  /** One of the bridge's own resource tools, by exposed name or `bridge/tool`, when they are enabled. */
  resourceTool(name: string): ToolDefinition | undefined {
    return this.#resourceTools().find(
      (definition) => definition.name === name || `${BRIDGE_TOOL_SERVER}/${definition.tool}` === name,
    );
  }

  /** The opt-in resource tools (`resourceTools`), named by the configured format. */
  #resourceTools(): ToolDefinition[] {
    const settings = this.#options.config().settings;
    if (!(this.#options.resourceTools ?? settings.resourceTools ?? false)) return [];
    const format = settings.toolNameFormat;
    if (this.#resourceToolCache?.format !== format) {
      this.#resourceToolCache = { format, definitions: resourceToolDefinitions(format) };
    }
    return this.#resourceToolCache.definitions;
  }

  #newRegistry(): ToolRegistry {
    const config = this.#options.config();
    const registry = new ToolRegistry({
      toolNameFormat: config.settings.toolNameFormat,
      descriptionPrefix: config.settings.descriptionPrefix,
      reservedNames: this.#options.reservedToolNames,
      filter: this.#options.toolFilter,
      logger: this.#options.logger,
    });
    registry.declareServers(config.servers.map((server) => server.name));
    return registry;
  }
}
