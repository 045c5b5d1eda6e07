import { loadConfig } from "../config/load.js";
import type { BridgeSettings, ResolvedConfig, ServerDefinition } from "../config/model.js";
import type { ServerStatus } from "../connection/status.js";
import { ErrorCode, errorMessages, McpBridgeError, ServerCrashedError } from "../errors.js";
import { ToolRegistry } from "../registry/registry.js";
import { CallStats } from "../registry/stats.js";
import type { ToolDefinition } from "../registry/types.js";
import { errorToolResult } from "../results/convert.js";
import type { ToolResult } from "../results/types.js";
import { ToolSearchIndex, type ToolSearchOptions } from "../search/index.js";
import { createTelemetry } from "../telemetry/telemetry.js";
import { TypedEmitter } from "../util/events.js";
import type { Logger } from "../util/logger.js";
import { errorText } from "../util/text-of.js";
import { CachedCatalogs } from "./cached-catalogs.js";
import { type CallContext, callOnRecord, ToolEntries } from "./call.js";
import {
  invalidStatus,
  notStartedStatus,
  requiredServersError,
  restartRefusal,
  unknownToolError,
} from "./diagnostics.js";
import { type ResolvedBridgeOptions, resolveBridgeOptions, resultPolicy } from "./options.js";
import { planReload, reloadSummary, SerialQueue, watchConfigFile } from "./reload.js";
import { BRIDGE_TOOL_SERVER, callResourceTool, resourceToolDefinitions } from "./resource-tools.js";
import { RestartGates } from "./restart-gates.js";
import { ServerRecord, stillConnecting } from "./server-record.js";
import { ServerTable } from "./server-table.js";
import { ClientSurface } from "./surface.js";
import { closedError } from "./surface-host.js";
import type { SurfaceMethods } from "./surface-methods.js";
import { surfaceMethods } from "./surface-methods.js";
import type {
  Bridge,
  BridgeEventMap,
  BridgeOptions,
  BridgeStats,
  CallOptions,
  ReloadSummary,
  ToolEntry,
} from "./types.js";

/**
 * Loads the config, connects every enabled server in parallel and resolves once each is connected or
 * has failed (or at once with `wait: false`). A failing server never makes this reject; only a server
 * marked `required` that could not start does (unless `enforceRequired: false`).
 */
export async function startBridge(options: BridgeOptions = {}): Promise<Bridge> {
  const resolved = resolveBridgeOptions(options, await createTelemetry(options.telemetry ?? true));
  const config = await loadConfig(resolved.load);
  const bridge = new BridgeRuntime(config, resolved);
  await bridge.startAll();
  return bridge;
}

/** `McpBridge.start(options)`: the same as `startBridge(options)`. */
export const McpBridge = { start: startBridge } as const;

/** The call failed because its connection went away (not because of the tool, a timeout or the caller). */
function isConnectionLoss(error: unknown): boolean {
  return error instanceof McpBridgeError && error.code === ErrorCode.ServerCrashed;
}

class BridgeRuntime implements Bridge {
  config: ResolvedConfig;
  readonly #options: ResolvedBridgeOptions;
  readonly #logger: Logger;
  readonly #events: TypedEmitter<BridgeEventMap>;
  readonly #servers = new ServerTable();
  readonly #stats = new CallStats();
  readonly #entries = new ToolEntries();
  readonly #catalogs: CachedCatalogs;
  #searchIndex: { list: readonly ToolDefinition[]; index: ToolSearchIndex<ToolDefinition> } | undefined;
  #registry: ToolRegistry;
  #stopWatching: (() => void) | undefined;
  /** One reload changes the servers at a time. */
  readonly #reloads = new SerialQueue();
  readonly #restarting = new RestartGates();
  readonly #restartsUnderWay = new Map<string, Promise<ServerStatus>>();
  #closing: Promise<void> | undefined;
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
  #resourceToolCache: { format: string; definitions: ToolDefinition[] } | undefined;

  constructor(config: ResolvedConfig, options: ResolvedBridgeOptions) {
    this.config = config;
    this.#options = options;
    this.#logger = options.logger;
    this.#events = new TypedEmitter((error) =>
      this.#logger.error("A bridge event listener threw", { error: errorText(error) }),
    );
    this.#registry = this.#newRegistry();
    this.#catalogs = new CachedCatalogs({
      dir: options.catalogCacheDir,
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

  /** The opt-in resource tools (`resourceTools`), named by the configured format. */
  #resourceTools(): ToolDefinition[] {
    if (!(this.#options.resourceTools ?? this.config.settings.resourceTools ?? false)) return [];
    const format = this.config.settings.toolNameFormat;
    if (this.#resourceToolCache?.format !== format) {
      this.#resourceToolCache = { format, definitions: resourceToolDefinitions(format) };
    }
    return this.#resourceToolCache.definitions;
  }

  #resourceTool(name: string): ToolDefinition | undefined {
    return this.#resourceTools().find(
      (definition) => definition.name === name || `${BRIDGE_TOOL_SERVER}/${definition.tool}` === name,
    );
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
      const skipped = this.#registry.skipped(definition.name);
      const status = this.#catalogs.status(record, record.status());
      return skipped.length > 0 ? { ...status, skippedTools: skipped } : status;
    });
    // Entries the config could not load are listed too, so every server the user wrote is visible.
    return [...configured, ...this.config.skipped.map(invalidStatus)];
  }

  server(name: string): ServerStatus | undefined {
    return this.servers().find((status) => status.name === name);
  }

  tools(filter: { server?: string } = {}): ToolEntry[] {
    const definitions =
      filter.server === undefined ? this.#registry.list() : this.#registry.forServer(filter.server);
    const own = this.#resourceTools().filter(
      (d) => filter.server === undefined || filter.server === d.server,
    );
    return [...definitions, ...own].map((definition) => this.#entryOf(definition));
  }

  /** The tools that best match a task described in words (or a tool's name), best first. */
  searchTools(query: string, options: ToolSearchOptions = {}): ToolEntry[] {
    const definitions = this.#registry.list();
    // The registry keeps one list object until its tools change, so the index is rebuilt only then.
    let index = this.#searchIndex?.list === definitions ? this.#searchIndex.index : undefined;
    if (!index) {
      index = new ToolSearchIndex(definitions);
      this.#searchIndex = { list: definitions, index };
    }
    return index.search(query, options).map((definition) => this.#entryOf(definition));
  }

  tool(name: string): ToolEntry | undefined {
    const definition = this.#registry.get(name) ?? this.#resourceTool(name);
    return definition ? this.#entryOf(definition) : undefined;
  }

  resolve(name: string): { server: string; tool: string } | undefined {
    const definition = this.#registry.resolve(name) ?? this.#resourceTool(name);
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
        const target = this.resolve(name);
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
    if (this.#closing) throw closedError();
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
    const running = this.#restartsUnderWay.get(name);
    if (running) return running;
    const restarting = this.#restartOnce(name).finally(() => this.#restartsUnderWay.delete(name));
    this.#restartsUnderWay.set(name, restarting);
    return restarting;
  }

  async #restartOnce(name: string): Promise<ServerStatus> {
    const refuse = () => {
      if (this.#closing) throw closedError();
      const { servers, settings } = this.config;
      const refusal = restartRefusal(name, servers, settings.enabled, (d) => this.#selected(d));
      if (refusal) throw refusal;
    };
    refuse();
    // Calls made from now on wait until the old process tree is gone and the new record is current.
    const swapped = this.#restarting.close(name);
    try {
      const record = await this.#reloads.run(async () => {
        refuse(); // a reload may have changed the config meanwhile
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
      });
      swapped();
      await record.connect();
      return record.status();
    } finally {
      swapped();
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#stopWatching?.();
      this.#stopWatching = undefined;
      // A reload under way has either swapped its servers in (they are closed here) or has not
      // started any yet: it sees the bridge closing, closes its own and rejects with BRIDGE_CLOSED.
      await this.#servers.closeAll();
      this.#events.clear();
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // --- internals ---

  async #reloadOnce(): Promise<{ summary: ReloadSummary; starting: Promise<unknown> }> {
    if (this.#closing) throw closedError();
    const next = await loadConfig(this.#options.load);
    const plan = planReload(this.config.servers, next.servers);
    const fresh = await Promise.all(
      [...plan.restarted, ...plan.added]
        .filter((definition) => this.#selected(definition))
        .map((definition) => this.#open(definition, next.settings)),
    );
    if (this.#closing) {
      await Promise.all(fresh.map((record) => record.close()));
      throw closedError();
    }
    // From here on nothing awaits: the swap is atomic for calls and events.
    for (const warning of next.warnings) this.#logger.warn(warning.message, { ...warning });
    const settingsChanged = JSON.stringify(next.settings) !== JSON.stringify(this.config.settings);
    this.config = next;
    for (const definition of [...plan.refiltered, ...plan.unchanged]) {
      const record = this.#servers.get(definition.name);
      if (record) record.definition = definition;
    }
    if (settingsChanged) {
      this.#registry = this.#newRegistry();
      this.#surface.settingsChanged();
      for (const record of this.#servers.records()) this.#publishTools(record);
    } else {
      this.#registry.declareServers(next.servers.map((server) => server.name));
      for (const definition of plan.refiltered) {
        const record = this.#servers.get(definition.name);
        if (record) this.#publishTools(record);
      }
    }
    for (const definition of plan.removed) {
      this.#servers.delete(definition.name);
      const removed = this.#registry.forServer(definition.name).map((tool) => tool.name);
      this.#registry.removeServer(definition.name);
      this.#events.emit("toolsChanged", { server: definition.name, tools: [], removed });
    }
    // A replaced server's last tools stay listed until its new connection lists its own, so a call
    // made meanwhile finds the new record and waits for it instead of failing with TOOL_NOT_FOUND.
    // The old process runs until its calls in flight have ended.
    for (const record of fresh) this.#install(record);
    const starting = Promise.all(fresh.map((record) => record.start()));
    // Old tools are kept only for a replacement that is connecting now (not disabled, lazy or failed).
    for (const record of fresh) if (!stillConnecting(record.status())) this.#publishTools(record);
    return { summary: reloadSummary(plan, next.servers), starting };
  }

  #newRegistry(): ToolRegistry {
    const settings = this.config.settings;
    const registry = new ToolRegistry({
      toolNameFormat: settings.toolNameFormat,
      descriptionPrefix: settings.descriptionPrefix,
      reservedNames: this.#options.reservedToolNames,
      filter: this.#options.toolFilter,
      logger: this.#logger,
    });
    registry.declareServers(this.config.servers.map((server) => server.name));
    return registry;
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
      if (this.#servers.isCurrent(record)) this.#catalogs.save(record, this.config.settings);
      this.#publishTools(record, { quietIfSame: wasCached });
    });
    record.connection?.on("stateChanged", (status) => {
      if (!this.#servers.isCurrent(record)) return;
      if (record.connection) this.#surface.stateChanged(record.connection, status);
      // A replacement that failed lists no tools of its own: drop the ones kept from its predecessor
      // or read from the catalog cache.
      if (status.state === "failed" || status.state === "closed") this.#catalogs.end(record);
      if (status.state === "failed" && this.#registry.forServer(record.name).length > 0) {
        this.#publishTools(record);
      }
      this.#events.emit("serverStateChanged", status);
    });
    const replaced = this.#servers.set(record, options);
    return options.now ? replaced : Promise.resolve();
  }

  #publishTools(record: ServerRecord, options: { quietIfSame?: boolean } = {}): void {
    if (!this.#servers.isCurrent(record)) return;
    const tools = this.#catalogs.tools(record) ?? record.connection?.tools() ?? [];
    const previous = this.#registry.forServer(record.name);
    const before = new Set(previous.map((tool) => tool.name));
    if (tools.length === 0) this.#registry.removeServer(record.name);
    else
      this.#registry.setServerTools(record.name, record.definition.tools, tools, {
        toolTasks: this.#surface.runsToolTasks(record.name),
      });
    if (options.quietIfSame && sameDefinitions(previous, this.#registry.forServer(record.name))) return;
    const after = this.tools({ server: record.name });
    for (const tool of after) before.delete(tool.name);
    this.#events.emit("toolsChanged", { server: record.name, tools: after, removed: [...before] });
  }

  #entryOf(definition: ToolDefinition): ToolEntry {
    return this.#entries.of(definition, (args, options) => this.call(definition.name, args, options));
  }

  async #call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult> {
    if (this.#closing) throw closedError();
    const own = this.#resourceTool(name);
    if (own) {
      return callResourceTool(this.#surface.resources, own.tool, args, {
        ...options,
        maxResultChars: options.maxResultChars ?? this.config.settings.maxResultChars,
      });
    }
    let definition = this.#registry.resolve(name) ?? (await this.#resolveLate(name, options));
    const wait = options.timeout ?? this.#servers.get(definition.server)?.definition.callTimeoutMs ?? 0;
    await this.#restarting.pass(definition.server, wait, options.signal);
    let record = this.#servers.get(definition.server);
    if (!record) throw this.#unknownTool(name, undefined);
    if (this.#catalogs.served(record)) {
      ({ definition, record, options } = await this.#awaitLiveTool(name, record, definition, options));
    }
    const context = {
      stats: this.#stats,
      maxResultChars: this.config.settings.maxResultChars,
      onError: this.#options.onError,
      validateArguments: this.#options.validateArguments,
      results: resultPolicy(this.#options.results, this.config.settings),
      callAsTask: this.#callAsTask,
    };
    const started = Date.now();
    try {
      return await callOnRecord(record, definition, args, options, context);
    } catch (error) {
      // A call that was still waiting for its server when a reload replaced that server was never
      // sent (the replaced connection reports itself closed): send it on the new connection instead.
      const current = this.#servers.get(definition.server);
      const replaced = current !== undefined && current !== record && !this.#closing;
      const unsent = error instanceof McpBridgeError && error.code === ErrorCode.BridgeClosed;
      if (replaced && record.restarted && !unsent && isConnectionLoss(error)) {
        throw new ServerCrashedError(errorMessages.restartedDuringCall(definition.server, definition.tool), {
          server: definition.server,
          tool: definition.tool,
          cause: error,
        });
      }
      if (!(replaced && unsent)) throw error;
      const timeout = (options.timeout ?? record.definition.callTimeoutMs) - (Date.now() - started);
      return callOnRecord(current, definition, args, { ...options, timeout: Math.max(1, timeout) }, context);
    }
  }

  /**
   * A tool listed from the catalog cache: waits (within the call's timeout) for its server's live list,
   * then resolves the name again, so a tool the server no longer has fails as unknown. A server that
   * cannot connect is left to the call, which then fails as it does without the cache.
   */
  async #awaitLiveTool(
    name: string,
    record: ServerRecord,
    definition: ToolDefinition,
    options: CallOptions,
  ): Promise<{ definition: ToolDefinition; record: ServerRecord; options: CallOptions }> {
    const timeout = options.timeout ?? record.definition.callTimeoutMs;
    const started = Date.now();
    const connected = await record.ensureConnected({ signal: options.signal, timeoutMs: timeout }).then(
      () => true,
      () => false,
    );
    const rest = { ...options, timeout: Math.max(1, timeout - (Date.now() - started)) };
    if (!connected || this.#closing) return { definition, record, options: rest };
    const live = this.#registry.resolve(name);
    const current = live && this.#servers.get(live.server);
    if (!live || !current) throw this.#unknownTool(name, this.#servers.splitServerTool(name));
    return { definition: live, record: current, options: rest };
  }

  /**
   * A name the registry does not know (yet): waits, up to the call's timeout, for a reload under way
   * and for the servers that may bring the tool (see ServerTable.awaitTool). Only then is it unknown.
   */
  async #resolveLate(name: string, options: CallOptions): Promise<ToolDefinition> {
    // A reload under way may be adding this tool's server: let it swap its servers in first.
    if (await this.#reloads.settled(options.timeout ?? this.config.settings.callTimeoutMs, options.signal)) {
      const definition = this.#registry.resolve(name);
      if (definition) return definition;
    }
    await this.#servers.awaitTool(name, options, () => this.#registry.resolve(name));
    if (this.#closing) throw closedError();
    const definition = this.#registry.resolve(name);
    if (!definition) throw this.#unknownTool(name, this.#servers.splitServerTool(name));
    return definition;
  }

  #unknownTool(name: string, target: { server: string; tool: string } | undefined): McpBridgeError {
    return unknownToolError(name, target, this.#servers.statuses(), this.#registry.list().length);
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
