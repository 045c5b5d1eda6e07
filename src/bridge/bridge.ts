import { loadConfig } from "../config/load.js";
import type { BridgeSettings, ResolvedConfig, ServerDefinition } from "../config/model.js";
import { secretsOf } from "../config/secrets.js";
import type { ServerStatus } from "../connection/server-status.js";
import { ErrorCode, errorMessages, ServerConnectionError } from "../errors/index.js";
import { CallStats } from "../registry/stats.js";
import type { ToolDefinition } from "../registry/types.js";
import { errorToolResult } from "../results/convert.js";
import { OverflowFiles } from "../results/overflow.js";
import type { ToolResult } from "../results/types.js";
import type { ToolSearchOptions } from "../search/index.js";
import { createTelemetry } from "../telemetry/telemetry.js";
import { TypedEmitter } from "../util/events.js";
import type { Logger } from "../util/logger.js";
import { errorText } from "../util/text-of.js";
import type {
  Bridge,
  BridgeEventMap,
  BridgeOptions,
  BridgeStats,
  CallOptions,
  ReloadSummary,
  ToolEntry,
} from "./api.js";
import { applyReload } from "./apply-reload.js";
import { type CallContext, ToolEntries } from "./call.js";
import { CallRouter } from "./calls.js";
import { invalidStatus, notStartedStatus, requiredServersError, restartRefusal } from "./diagnostics.js";
import { type ResolvedBridgeOptions, resolveBridgeOptions, resultPolicy } from "./options.js";
import { ToolCatalog } from "./published-tools.js";
import { SerialQueue, watchConfigFile } from "./reload.js";
import { callResourceTool } from "./resource-tools.js";
import { ServerRecord } from "./server-record.js";
import { ServerRestarts } from "./server-restart.js";
import { ServerTable } from "./server-table.js";
import { ClientSurface } from "./surface.js";
import { closedError } from "./surface-host.js";
import type { SurfaceMethods } from "./surface-methods.js";
import { surfaceMethods } from "./surface-methods.js";
import { declaresToolTasks } from "./tasks.js";
import { ToolListCache } from "./tool-list-cache.js";

/**
 * Loads the config, connects every enabled server in parallel and resolves once each is connected or
 * has failed (or at once with `wait: false`). A failing server never makes this reject; only a server
 * marked `required` that could not start does (unless `enforceRequired: false`).
 */
export async function startBridge(options: BridgeOptions = {}): Promise<Bridge> {
  const resolved = resolveBridgeOptions(options, await createTelemetry(options.telemetry ?? true));
  const config = await loadConfig(resolved.load);
  resolved.secrets.add(config.servers.flatMap(secretsOf));
  const bridge = new BridgeRuntime(config, resolved);
  await bridge.startAll();
  return bridge;
}

/** `McpBridge.start(options)`: the same as `startBridge(options)`. */
export const McpBridge = { start: startBridge } as const;

class BridgeRuntime implements Bridge {
  config: ResolvedConfig;
  readonly #options: ResolvedBridgeOptions;
  readonly #logger: Logger;
  readonly #events: TypedEmitter<BridgeEventMap>;
  readonly #servers = new ServerTable();
  readonly #stats = new CallStats();
  readonly #overflowFiles = new OverflowFiles();
  readonly #entries = new ToolEntries();
  readonly #catalogs: ToolListCache;
  readonly #tools: ToolCatalog;
  #stopWatching: (() => void) | undefined;
  /** One reload changes the servers at a time. */
  readonly #reloads = new SerialQueue();
  readonly #restarts: ServerRestarts;
  readonly #router: CallRouter;
  #closing: Promise<void> | undefined;
  /** The calls' shared context and the settings it was made from (see #callContext). */
  #context: { readonly settings: BridgeSettings; readonly context: CallContext } | undefined;
  readonly #surface: ClientSurface;
  /** Bound once: every call's context carries it. */
  readonly #callAsTask: CallContext["callAsTask"] = (connection, args, options) =>
    this.#surface.callAsTask(connection, args, options);
  // MCP beyond tools (resources, prompts, completions, roots): see surface.ts.
  readonly resources: SurfaceMethods["resources"];
  readonly resourceTemplates: SurfaceMethods["resourceTemplates"];
  readonly readResource: SurfaceMethods["readResource"];
  readonly subscribe: SurfaceMethods["subscribe"];
  readonly prompts: SurfaceMethods["prompts"];
  readonly getPrompt: SurfaceMethods["getPrompt"];
  readonly complete: SurfaceMethods["complete"];
  readonly setRoots: SurfaceMethods["setRoots"];
  readonly skills: SurfaceMethods["skills"];
  readonly loadSkill: SurfaceMethods["loadSkill"];

  constructor(config: ResolvedConfig, options: ResolvedBridgeOptions) {
    this.config = config;
    this.#options = options;
    this.#logger = options.logger;
    this.#events = new TypedEmitter((error) =>
      this.#logger.error("A bridge event listener threw", { error: errorText(error) }),
    );
    this.#tools = new ToolCatalog({
      config: () => this.config,
      reservedToolNames: options.reservedToolNames,
      toolFilter: options.toolFilter,
      resourceTools: options.resourceTools,
      logger: this.#logger,
    });
    this.#catalogs = new ToolListCache({
      dir: options.toolListCacheDir,
      option: options.catalogCache,
      logger: this.#logger,
    });
    this.#surface = new ClientSurface({
      logger: this.#logger,
      config: () => this.config,
      connections: () => this.#servers.connections(),
      closed: () => this.#closing !== undefined,
      onSampling: options.onSampling,
      onResourcesChanged: (server) => this.#events.emit("resourcesChanged", { server }),
      onPromptsChanged: (server) => this.#events.emit("promptsChanged", { server }),
      onServerLog: (message) => this.#events.emit("serverLog", message),
      secrets: options.secrets,
    });
    this.#restarts = new ServerRestarts({
      reloads: this.#reloads,
      refusal: (name) => {
        if (this.#closing) return closedError();
        const { servers, settings } = this.config;
        return restartRefusal(name, servers, settings.enabled, (d) => this.#selected(d));
      },
      replace: (name) => this.#replace(name),
    });
    this.#router = new CallRouter({
      registry: () => this.#tools.registry,
      settings: () => this.config.settings,
      closing: () => this.#closing !== undefined,
      servers: this.#servers,
      catalogs: this.#catalogs,
      restarting: this.#restarts.gates,
      reloads: this.#reloads,
    });
    const surface = surfaceMethods(this.#surface);
    this.resources = surface.resources;
    this.resourceTemplates = surface.resourceTemplates;
    this.readResource = surface.readResource;
    this.subscribe = surface.subscribe;
    this.prompts = surface.prompts;
    this.getPrompt = surface.getPrompt;
    this.complete = surface.complete;
    this.setRoots = surface.setRoots;
    this.skills = surface.skills;
    this.loadSkill = surface.loadSkill;
    for (const warning of config.warnings) this.#logger.warn(warning.message, { ...warning });
  }

  /**
   * Starts every selected server in parallel. A server whose tools the catalog cache holds is listed
   * from it at once and is not waited for (unless it is `required`): it connects in the background.
   */
  async startAll(): Promise<void> {
    for (const definition of this.config.servers) {
      if (this.#selected(definition)) this.#install(await this.#open(definition, this.config.settings));
    }
    const starting = this.#servers.records().map((record) => {
      const cached = this.#catalogs.load(record, this.config.settings);
      if (cached) this.#publishTools(record);
      // A server listed from the cache is spawned after start() has handed the host its tools.
      const started = record.start({ deferSpawn: cached !== undefined });
      return cached && !record.definition.required ? undefined : started;
    });
    const file = this.config.file;
    if (this.config.settings.autoReload && file) {
      this.#stopWatching = watchConfigFile(file, () => this.reload(), this.#logger);
    }
    if (!this.#options.wait) return;
    await Promise.all(starting);
    await this.#enforceRequired();
  }

  ready(): Promise<void> {
    return this.#servers.ready();
  }

  servers(): ServerStatus[] {
    const configured = this.config.servers.map((definition) => {
      const record = this.#servers.get(definition.name);
      if (!record) return notStartedStatus(definition);
      const skipped = this.#tools.registry.skipped(definition.name);
      const status = this.#catalogs.status(record, record.status());
      return skipped.length > 0 ? { ...status, skippedTools: skipped } : status;
    });
    // Entries the config could not load are listed too, so every server the user wrote is visible.
    return [...configured, ...this.config.skipped.map(invalidStatus)];
  }

  server(name: string): ServerStatus | undefined {
    return this.servers().find((status) => status.name === name);
  }

  /**
   * Every public method but the status ones (`servers`, `server`, `stats`) throws BRIDGE_CLOSED once
   * `close()` began, as `call` does: a tool listed or resolved then could no longer be called.
   */
  #assertOpen(): void {
    if (this.#closing) throw closedError();
  }

  tools(filter: { server?: string } = {}): ToolEntry[] {
    this.#assertOpen();
    return this.#listTools(filter.server);
  }

  #listTools(server: string | undefined): ToolEntry[] {
    return this.#tools.list(server).map((definition) => this.#entryOf(definition));
  }

  /** The tools that best match a task described in words (or a tool's name), best first. */
  searchTools(query: string, options: ToolSearchOptions = {}): ToolEntry[] {
    this.#assertOpen();
    return this.#tools.search(query, options).map((definition) => this.#entryOf(definition));
  }

  tool(name: string): ToolEntry | undefined {
    this.#assertOpen();
    const definition = this.#tools.get(name);
    return definition ? this.#entryOf(definition) : undefined;
  }

  resolve(name: string): { server: string; tool: string } | undefined {
    this.#assertOpen();
    return this.#resolve(name);
  }

  /** Unguarded: a call failing because the bridge closed still names its target in the result. */
  #resolve(name: string): { server: string; tool: string } | undefined {
    const definition = this.#tools.resolve(name);
    if (definition) return { server: definition.server, tool: definition.tool };
    return this.#servers.splitServerTool(name);
  }

  async call(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<ToolResult> {
    const onError = options.onError ?? this.#options.onError;
    try {
      return await this.#call(name, args, options);
    } catch (error) {
      if (onError === "result") {
        const target = this.#resolve(name);
        return errorToolResult(error, { ...(target ?? {}) });
      }
      throw error;
    }
  }

  stats(): BridgeStats {
    return this.#stats.snapshot();
  }

  on<E extends keyof BridgeEventMap>(event: E, listener: (...args: BridgeEventMap[E]) => void): () => void {
    return this.#events.on(event, listener);
  }

  /**
   * Reloads run one after another, so two never replace the same server twice. The queue covers only
   * the change itself (load, auth setup, swap); waiting for new servers to connect happens outside it.
   */
  async reload(): Promise<ReloadSummary> {
    this.#assertOpen();
    const run = this.#reloads.run(() => this.#reloadOnce());
    const { summary, starting } = await run;
    if (this.#options.wait) await starting;
    return summary;
  }

  /**
   * Stops the server (its process tree is gone before the new one starts) and connects it again on a
   * fresh connection: a new restart budget, auth read afresh from the token store. Calls in flight on
   * the old connection fail; calls made meanwhile wait for the new one. Runs in the reload queue; a
   * second restart of the same server while one is under way shares it.
   */
  restart(name: string): Promise<ServerStatus> {
    return this.#restarts.restart(name);
  }

  /**
   * Lists tools again now (of one server, or of every connected one), as tools/list_changed would;
   * resolves once the new lists are published. An unknown name is SERVER_NOT_FOUND; a server that
   * cannot connect or list rejects with its error.
   */
  async refreshTools(server?: string): Promise<void> {
    this.#assertOpen();
    if (server === undefined) {
      const live = this.#servers.records().filter((record) => record.connection?.state === "connected");
      await Promise.all(live.map((record) => record.connection?.refreshTools()));
      return;
    }
    const connection = this.#servers.get(server)?.connection;
    if (!connection) {
      const names = this.config.servers.map((definition) => definition.name);
      throw new ServerConnectionError(ErrorCode.ServerNotFound, errorMessages.serverNotFound(server, names), {
        server,
      });
    }
    await connection.refreshTools();
  }

  /** A restart's swap: a fresh record for the server, current once the old process tree is gone. */
  async #replace(name: string): Promise<ServerRecord> {
    const definition = this.config.servers.find((d) => d.name === name) as ServerDefinition;
    const fresh = await this.#open(definition, this.config.settings);
    if (this.#closing) {
      await fresh.close();
      throw closedError();
    }
    const previous = this.#servers.get(name);
    if (previous) previous.restarted = true;
    await this.#install(fresh, { now: true });
    return fresh;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#stopWatching?.();
      this.#stopWatching = undefined;
      // A reload under way has either swapped its servers in (they are closed here) or has not
      // started any yet: it sees the bridge closing, closes its own and rejects with BRIDGE_CLOSED.
      await this.#servers.closeAll();
      this.#events.clear();
      if (!this.#options.results.keepOverflowFiles) this.#overflowFiles.removeAll();
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // --- internals ---

  #reloadOnce(): Promise<{ summary: ReloadSummary; starting: Promise<unknown> }> {
    return applyReload({
      load: async () => {
        const next = await loadConfig(this.#options.load);
        this.#options.secrets.add(next.servers.flatMap(secretsOf));
        return next;
      },
      config: () => this.config,
      setConfig: (next) => {
        this.config = next;
      },
      closing: () => this.#closing !== undefined,
      selected: (definition) => this.#selected(definition),
      open: (definition, settings) => this.#open(definition, settings),
      install: (record) => this.#install(record),
      publishTools: (record) => this.#publishTools(record),
      settingsChanged: () => {
        this.#tools.renew();
        this.#surface.settingsChanged();
      },
      toolsRemoved: (server, removed) => this.#events.emit("toolsChanged", { server, tools: [], removed }),
      servers: this.#servers,
      tools: this.#tools,
      logger: this.#logger,
    });
  }

  #selected(definition: ServerDefinition): boolean {
    return this.#options.only === undefined || this.#options.only.has(definition.name);
  }

  #open(definition: ServerDefinition, settings: BridgeSettings): Promise<ServerRecord> {
    return ServerRecord.open(definition, settings, this.#options, (client) =>
      this.#surface.configureClient(definition, client),
    );
  }

  /**
   * Makes the record the server's current one and routes its events (a replaced record's are ignored).
   * Resolves once a record closed at once (`now`) is gone; a retired one closes in the background.
   */
  #install(record: ServerRecord, options: { now?: boolean } = {}): Promise<void> {
    record.connection?.on("toolsChanged", () => {
      // A live list: it replaces the cached one (silently when they are the same) and is saved.
      const wasCached = this.#catalogs.end(record);
      if (this.#servers.isCurrent(record))
        this.#catalogs.save(record, this.config.settings, this.#surface.serverCapabilities(record.name));
      this.#publishTools(record, { quietIfSame: wasCached });
    });
    record.connection?.on("stateChanged", (status) => {
      if (!this.#servers.isCurrent(record)) return;
      if (record.connection) this.#surface.stateChanged(record.connection, status);
      // A replacement that failed lists no tools of its own: drop the ones kept from its predecessor
      // or read from the catalog cache.
      if (status.state === "failed" || status.state === "closed") this.#catalogs.end(record);
      if (status.state === "failed" && this.#tools.registry.forServer(record.name).length > 0) {
        this.#publishTools(record);
      }
      this.#events.emit("serverStateChanged", status);
    });
    const replaced = this.#servers.set(record, options);
    return options.now ? replaced : Promise.resolve();
  }

  #publishTools(record: ServerRecord, options: { quietIfSame?: boolean } = {}): void {
    if (!this.#servers.isCurrent(record)) return;
    const cached = this.#catalogs.tools(record);
    const tools = cached ?? record.connection?.tools() ?? [];
    const previous = this.#tools.registry.forServer(record.name);
    const before = new Set(previous.map((tool) => tool.name));
    if (tools.length === 0) this.#tools.registry.removeServer(record.name);
    else
      this.#tools.registry.setServerTools(record.name, record.definition.tools, tools, {
        toolTasks: cached
          ? this.#catalogs.toolTasks(record)
          : declaresToolTasks(this.#surface.serverCapabilities(record.name)),
      });
    if (options.quietIfSame && sameDefinitions(previous, this.#tools.registry.forServer(record.name))) return;
    const after = this.#listTools(record.name);
    for (const tool of after) before.delete(tool.name);
    this.#events.emit("toolsChanged", { server: record.name, tools: after, removed: [...before] });
  }

  #entryOf(definition: ToolDefinition): ToolEntry {
    return this.#entries.of(definition, (args, options) => this.call(definition.name, args, options));
  }

  /** Not async: `call` awaits it inside its try, which also catches what this throws. */
  #call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult> {
    this.#assertOpen();
    const own = this.#tools.resourceTool(name);
    if (own) {
      return callResourceTool(this.#surface.resources, own.tool, args, {
        ...options,
        maxResultChars: options.maxResultChars ?? this.config.settings.maxResultChars,
      });
    }
    return this.#router.call(name, args, options, this.#callContext());
  }

  /** What every call shares, made again only when a reload brings new settings. */
  #callContext(): CallContext {
    const settings = this.config.settings;
    if (this.#context?.settings !== settings) {
      const context: CallContext = {
        stats: this.#stats,
        maxResultChars: settings.maxResultChars,
        onError: this.#options.onError,
        validateArguments: this.#options.validateArguments,
        results: resultPolicy(this.#options.results, settings),
        overflowFiles: this.#overflowFiles,
        callAsTask: this.#callAsTask,
        redact: this.#options.secrets.text,
      };
      this.#context = { settings, context };
    }
    return this.#context.context;
  }

  async #enforceRequired(): Promise<void> {
    if (!this.#options.enforceRequired) return;
    const error = requiredServersError(this.config.servers, (name) => this.#servers.get(name)?.status());
    if (!error) return;
    await this.close();
    throw error;
  }
}

/** The same definition objects in the same order (the registry keeps unchanged definitions' objects). */
function sameDefinitions(a: readonly ToolDefinition[], b: readonly ToolDefinition[]): boolean {
  return a.length === b.length && a.every((definition, index) => definition === b[index]);
}
