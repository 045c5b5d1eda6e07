import { loadConfig } from "../config/load.js";
import type { ResolvedConfig } from "../config/model.js";
import { secretsOf } from "../config/secrets.js";
import type { ServerStatus } from "../connection/server-status.js";
import { bridgeClosed, serverNotFound } from "../errors/index.js";
import type { ToolResult } from "../results/tool-result.js";
import type { ToolSearchOptions } from "../search/tool-search.js";
import { createTelemetry } from "../telemetry/create-telemetry.js";
import type {
  Bridge,
  BridgeEventMap,
  BridgeOptions,
  BridgeStats,
  CallOptions,
  PinReport,
  ReloadSummary,
  ToolEntry,
} from "./api.js";
import { closeApprovals } from "./approvals/ask-approval.js";
import { type BridgeState, createBridgeState } from "./bridge-state.js";
import { callTool, resolveTarget } from "./calls.js";
import { invalidStatus, notStartedStatus, requiredServersError } from "./diagnostics.js";
import type { SurfaceMethods } from "./features/feature-methods.js";
import { promptGuard } from "./guardrails.js";
import { screenInstalledServers } from "./installed-servers.js";
import { type ResolvedBridgeOptions, resolveBridgeOptions } from "./options.js";
import { reload, watchConfigFile } from "./reload.js";
import {
  installServer,
  isSelected,
  openServer,
  publishTools,
  startsOnDemand,
  toolEntries,
} from "./servers/server-lifecycle.js";
import { restartServer } from "./servers/server-restart.js";
import { reportStartup } from "./servers/startup-report.js";
import { toolEntry } from "./tool-entries.js";

/**
 * Loads the config, connects every enabled server in parallel and resolves once each is connected or
 * has failed (or at once with `wait: false`). A failing server never makes this reject; only a server
 * marked `required` that could not start does (unless `enforceRequired: false`).
 */
export async function startBridge(options: BridgeOptions = {}): Promise<Bridge> {
  const resolved = resolveBridgeOptions(options, await createTelemetry(options.telemetry ?? true));
  const config = screenInstalledServers(await loadConfig(resolved.load), resolved.env);
  resolved.secrets.add(config.servers.flatMap(secretsOf));
  const bridge = new BridgeRuntime(config, resolved);
  await bridge.startAll();
  return bridge;
}

class BridgeRuntime implements Bridge {
  readonly #state: BridgeState;
  #stopWatching: (() => void) | undefined;
  // MCP beyond tools (resources, prompts, completions, roots, skills): see features/.
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
    this.#state = createBridgeState(config, options);
    this.#state.promptGuard = promptGuard(this.#state);
    const surface = this.#state.features.methods();
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
    for (const warning of config.warnings) options.logger.warn(warning.message, { ...warning });
  }

  get config(): ResolvedConfig {
    return this.#state.config;
  }

  /**
   * Starts every selected server in parallel. A server whose tools the tool-list cache holds is listed
   * from it at once and is not waited for (unless it is `required`): it connects in the background.
   */
  async startAll(): Promise<void> {
    const state = this.#state;
    const { config } = state;
    for (const definition of config.servers) {
      if (isSelected(state, definition)) {
        void installServer(state, await openServer(state, definition, config.settings));
      }
    }
    // Read in parallel before any server is listed (each read bounded by the store).
    await state.toolListCache.fetchShared(state.servers.records(), config.settings);
    const starting = state.servers.records().map((record) => {
      const cached = state.toolListCache.load(record, config.settings);
      if (cached) publishTools(state, record);
      // Lazy where the cache answers: no process until the server is used (its first call connects it).
      if (cached && startsOnDemand(state, record.definition)) {
        state.toolListCache.startsOnUse(record);
        return undefined;
      }
      // A server listed from the cache is spawned after start() has handed the host its tools.
      const started = record.start({ deferSpawn: cached !== undefined });
      return cached && !record.definition.required ? undefined : started;
    });
    // Servers that start no connection (lazy, disabled, failed setup) settle at once.
    state.startup.begun = true;
    reportStartup(state);
    if (config.settings.autoReload && config.file) {
      this.#stopWatching = watchConfigFile(config.file, () => this.reload(), state.logger);
    }
    if (!state.options.wait) return;
    await Promise.all(starting);
    await this.#enforceRequired();
  }

  async ready(): Promise<void> {
    await this.#state.servers.ready();
    // A drift being asked about is part of starting: its tools come back once accepted.
    await this.#state.pins.settled();
  }

  servers(): ServerStatus[] {
    const state = this.#state;
    const configured = state.config.servers.map((definition) => {
      const record = state.servers.get(definition.name);
      if (!record) return notStartedStatus(definition);
      const skipped = state.tools.registry.skipped(definition.name);
      const status = state.toolListCache.status(record, record.status());
      return skipped.length > 0 ? { ...status, skippedTools: skipped } : status;
    });
    // Entries the config could not load are listed too, so every server the user wrote is visible.
    return [...configured, ...state.config.skipped.map(invalidStatus)];
  }

  server(name: string): ServerStatus | undefined {
    return this.servers().find((status) => status.name === name);
  }

  /**
   * Every public method but the status ones (`servers`, `server`, `stats`) throws BRIDGE_CLOSED once
   * `close()` began, as `call` does: a tool listed or resolved then could no longer be called.
   */
  #assertOpen(): void {
    if (this.#state.closing) throw bridgeClosed();
  }

  tools(filter: { server?: string } = {}): ToolEntry[] {
    this.#assertOpen();
    return toolEntries(this.#state, filter.server);
  }

  /** The tools that best match a task described in words (or a tool's name), best first. */
  searchTools(query: string, options: ToolSearchOptions = {}): ToolEntry[] {
    this.#assertOpen();
    const state = this.#state;
    return state.tools.search(query, options).map((definition) => toolEntry(state, definition));
  }

  tool(name: string): ToolEntry | undefined {
    this.#assertOpen();
    const definition = this.#state.tools.get(name);
    return definition ? toolEntry(this.#state, definition) : undefined;
  }

  resolve(name: string): { server: string; tool: string } | undefined {
    this.#assertOpen();
    return resolveTarget(this.#state, name);
  }

  call(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<ToolResult> {
    return callTool(this.#state, name, args, options);
  }

  stats(): BridgeStats {
    return this.#state.stats.snapshot();
  }

  pins(server?: string): PinReport[] {
    const state = this.#state;
    const definitions = state.config.servers.filter((d) => server === undefined || d.name === server);
    return state.pins.reports(definitions, state.config.settings.onDrift);
  }

  /** Accepts the server's last listing as its pins; its tools kept out are published again. */
  async acceptPins(server: string): Promise<PinReport> {
    this.#assertOpen();
    const state = this.#state;
    const record = state.servers.get(server);
    if (!record) {
      const configured = state.config.servers.map((definition) => definition.name);
      throw serverNotFound({ server, configured });
    }
    state.pins.accept(record.definition);
    publishTools(state, record);
    return this.pins(server)[0] as PinReport;
  }

  on<E extends keyof BridgeEventMap>(event: E, listener: (...args: BridgeEventMap[E]) => void): () => void {
    return this.#state.events.on(event, listener);
  }

  /** See reload.ts: one reload at a time; with `wait`, resolves once the new servers are up. */
  reload(): Promise<ReloadSummary> {
    return reload(this.#state);
  }

  /** See servers/server-restart.ts: the server's process tree is gone before the new one starts. */
  restart(name: string): Promise<ServerStatus> {
    return restartServer(this.#state, name);
  }

  /**
   * Lists tools again now (of one server, or of every connected one), as tools/list_changed would;
   * resolves once the new lists are published. An unknown name is SERVER_NOT_FOUND; a server that
   * cannot connect or list rejects with its error.
   */
  async refreshTools(server?: string): Promise<void> {
    this.#assertOpen();
    const state = this.#state;
    if (server === undefined) {
      const live = state.servers.records().filter((record) => record.connection?.state === "connected");
      await Promise.all(live.map((record) => record.connection?.refreshTools()));
      return;
    }
    const connection = state.servers.get(server)?.connection;
    if (!connection) {
      const configured = state.config.servers.map((definition) => definition.name);
      throw serverNotFound({ server, configured });
    }
    await connection.refreshTools();
  }

  close(): Promise<void> {
    const state = this.#state;
    state.closing ??= (async () => {
      this.#stopWatching?.();
      this.#stopWatching = undefined;
      // A reload under way has either swapped its servers in (they are closed here) or has not
      // started any yet: it sees the bridge closing, closes its own and rejects with BRIDGE_CLOSED.
      await state.servers.closeAll();
      closeApprovals(state);
      state.events.clear();
      if (!state.options.results.keepOverflowFiles) state.overflowFiles.removeAll();
    })();
    return state.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #enforceRequired(): Promise<void> {
    const state = this.#state;
    if (!state.options.enforceRequired) return;
    const error = requiredServersError(state.config.servers, (name) => state.servers.get(name)?.status());
    if (!error) return;
    await this.close();
    throw error;
  }
}
