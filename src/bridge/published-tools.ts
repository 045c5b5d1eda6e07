import type { Tool } from "@modelcontextprotocol/client";
import type { BridgeSettings, ResolvedConfig, ToolFilter } from "../config/model.js";
import { ToolRegistry } from "../registry/registry.js";
import type { ToolDefinition, ToolFilterCallback } from "../registry/tool-definition.js";
import { ToolSearchIndex, type ToolSearchOptions } from "../search/tool-search.js";
import type { Logger } from "../util/logger.js";
import { BRIDGE_TOOL_SERVER, resourceToolDefinitions } from "./features/resource-tools.js";
import { taskSupportOf } from "./tasks.js";

export interface PublishedToolsOptions {
  readonly reservedToolNames: readonly string[];
  readonly toolFilter: ToolFilterCallback | undefined;
  /** The host's `resourceTools` option; undefined defers to the config's setting. */
  readonly resourceTools: boolean | undefined;
  readonly logger: Logger;
}

/**
 * The merged tool list the host sees: the registry of every server's tools (named by the settings'
 * format), the bridge's own opt-in resource tools, and the search index over them, rebuilt only when
 * the tools change. Publishing a server's tools also decides, once per listing, which of them are
 * called as tasks, so a call reads that decision instead of working it out again.
 */
export class PublishedTools {
  readonly #options: PublishedToolsOptions;
  /** The settings the names are made from (a reload with other settings renews the registry). */
  #settings: BridgeSettings;
  #registry: ToolRegistry;
  /** Per server, the (original) names of the tools that run as tasks. */
  readonly #taskTools = new Map<string, ReadonlySet<string>>();
  #searchIndex: { list: readonly ToolDefinition[]; index: ToolSearchIndex<ToolDefinition> } | undefined;
  #resourceToolCache: { format: string; definitions: ToolDefinition[] } | undefined;
  /**
   * Per server whose tools were withdrawn (it failed, or went down), the exposed names they had: a
   * call by one of those names still knows which server to reconnect (see `formerServerOf`).
   */
  readonly #formerNames = new Map<string, ReadonlySet<string>>();

  constructor(options: PublishedToolsOptions, config: ResolvedConfig) {
    this.#options = options;
    this.#settings = config.settings;
    this.#registry = this.#newRegistry(config);
  }

  get registry(): ToolRegistry {
    return this.#registry;
  }

  /** Settings changed (name format, description prefix): every server's tools are named afresh. */
  renew(config: ResolvedConfig): void {
    this.#settings = config.settings;
    this.#formerNames.clear();
    this.#registry = this.#newRegistry(config);
  }

  /**
   * Publishes a server's listing (an empty one removes the server's tools). `toolTasks`: whether the
   * server runs tool calls as tasks (its capabilities when it listed them); a tool then runs as a task
   * when it requires it, or allows it and the server can.
   */
  publish(server: string, filter: ToolFilter, tools: readonly Tool[], toolTasks: boolean): void {
    if (tools.length === 0) {
      this.remove(server);
      return;
    }
    this.#registry.setServerTools(server, filter, tools, { toolTasks });
    this.#formerNames.delete(server);
    const asTask = new Set<string>();
    for (const tool of tools) {
      const support = taskSupportOf(tool);
      if (support === "required" || (support === "optional" && toolTasks)) asTask.add(tool.name);
    }
    this.#taskTools.set(server, asTask);
  }

  /** Removes a server's tools; returns the exposed names it had. */
  remove(server: string): string[] {
    const removed = this.#registry.forServer(server).map((tool) => tool.name);
    if (removed.length > 0) this.#formerNames.set(server, new Set(removed));
    this.#registry.removeServer(server);
    this.#taskTools.delete(server);
    return removed;
  }

  /** The server whose withdrawn tools had exposed name `name` (undefined: none, or listed now). */
  formerServerOf(name: string): string | undefined {
    for (const [server, names] of this.#formerNames) if (names.has(name)) return server;
    return undefined;
  }

  /** Whether a call of this tool is sent as a task (decided when its server's tools were published). */
  runsAsTask(definition: ToolDefinition): boolean {
    return this.#taskTools.get(definition.server)?.has(definition.tool) === true;
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
    const settings = this.#settings;
    if (!(this.#options.resourceTools ?? settings.resourceTools ?? false)) return [];
    const format = settings.toolNameFormat;
    if (this.#resourceToolCache?.format !== format) {
      this.#resourceToolCache = { format, definitions: resourceToolDefinitions(format) };
    }
    return this.#resourceToolCache.definitions;
  }

  #newRegistry(config: ResolvedConfig): ToolRegistry {
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
