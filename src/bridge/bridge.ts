import { type FSWatcher, watch } from "node:fs";
import type { Tool } from "@modelcontextprotocol/client";
import { createAuthHandle } from "../auth/index.js";
import { diffServers } from "../config/diff.js";
import { loadConfig } from "../config/load.js";
import type { ResolvedConfig, ServerDefinition } from "../config/model.js";
import { secretsOf } from "../config/secrets.js";
import { createConnection, type ServerConnection } from "../connection/connection.js";
import type { ServerStatus } from "../connection/status.js";
import {
  ErrorCode,
  InvalidArgumentsError,
  McpBridgeError,
  ServerConnectionError,
  ToolExecutionError,
  ToolNotFoundError,
} from "../errors.js";
import { flattenParameters } from "../registry/flatten.js";
import { ToolRegistry } from "../registry/registry.js";
import { CallStats } from "../registry/stats.js";
import type { ToolDefinition } from "../registry/types.js";
import { validateArguments } from "../registry/validate.js";
import { errorToolResult, toToolResult } from "../results/convert.js";
import type { ToolResult } from "../results/types.js";
import { TypedEmitter } from "../util/events.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { redactText } from "../util/redact.js";
import { applySchemaDefaults } from "./elicitation.js";
import { registerElicitationModes } from "./elicitation-modes.js";
import { BRIDGE_TOOL_SERVER, callResourceTool, resourceToolDefinitions } from "./resource-tools.js";
import { ClientSurface } from "./surface.js";
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

const PACKAGE_CLIENT_INFO = { name: "mcp-bridge", version: "0.1.0" };

/**
 * Loads the config, connects every enabled server in parallel and resolves once each is connected or
 * has failed (or at once with `wait: false`). A failing server never makes this reject; only a server
 * marked `required` that could not start does (unless `enforceRequired: false`).
 */
export async function startBridge(options: BridgeOptions = {}): Promise<Bridge> {
  const config = await loadConfig(loadOptionsOf(options));
  const bridge = new BridgeRuntime(config, options);
  await bridge.startAll();
  return bridge;
}

/** `McpBridge.start(options)`: the same as `startBridge(options)`. */
export const McpBridge = { start: startBridge } as const;

function loadOptionsOf(options: BridgeOptions) {
  return {
    ...(options.config === undefined ? {} : { path: options.config }),
    ...(options.servers === undefined ? {} : { servers: options.servers }),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  };
}

class BridgeRuntime implements Bridge {
  config: ResolvedConfig;
  readonly #options: BridgeOptions;
  readonly #logger: Logger;
  readonly #events: TypedEmitter<BridgeEventMap>;
  readonly #connections = new Map<string, ServerConnection>();
  readonly #stats = new CallStats();
  readonly #entries = new WeakMap<ToolDefinition, ToolEntry>();
  #registry: ToolRegistry;
  readonly #surface: ClientSurface;
  // MCP beyond tools (resources, prompts, completions, roots): see surface.ts.
  readonly resources: SurfaceMethods["resources"];
  readonly resourceTemplates: SurfaceMethods["resourceTemplates"];
  readonly readResource: SurfaceMethods["readResource"];
  readonly subscribe: SurfaceMethods["subscribe"];
  readonly prompts: SurfaceMethods["prompts"];
  readonly getPrompt: SurfaceMethods["getPrompt"];
  readonly complete: SurfaceMethods["complete"];
  readonly setRoots: SurfaceMethods["setRoots"];
  #watcher: FSWatcher | undefined;
  #resourceToolCache: { format: string; definitions: ToolDefinition[] } | undefined;
  #closing: Promise<void> | undefined;

  constructor(config: ResolvedConfig, options: BridgeOptions) {
    this.config = config;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#events = new TypedEmitter((error) =>
      this.#logger.error("A bridge event listener threw", { error: String(error) }),
    );
    this.#registry = this.#newRegistry();
    this.#surface = new ClientSurface({
      logger: this.#logger,
      config: () => this.config,
      connections: () => this.#connections,
      closed: () => this.#closing !== undefined,
      ...(options.onSampling ? { onSampling: options.onSampling } : {}),
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
    for (const warning of config.warnings) this.#logger.warn(warning.message, { ...warning });
  }

  /** Starts every selected server in parallel. */
  async startAll(): Promise<void> {
    for (const definition of this.config.servers) await this.#addConnection(definition);
    const starting = [...this.#connections.values()].map((connection) => connection.start());
    this.#watchConfig();
    if (this.#options.wait === false) return;
    await Promise.all(starting);
    await this.#enforceRequired();
  }

  async ready(): Promise<void> {
    await Promise.all(
      [...this.#connections.values()].map(async (connection) => {
        const state = connection.status().state;
        if (state === "connecting" || state === "reconnecting") {
          await connection.ensureConnected().catch(() => {});
        }
      }),
    );
  }

  servers(): ServerStatus[] {
    return this.config.servers.map((definition) => {
      const connection = this.#connections.get(definition.name);
      return connection ? connection.status() : notStartedStatus(definition);
    });
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

  tool(name: string): ToolEntry | undefined {
    const definition = this.#registry.get(name) ?? this.#resourceTool(name);
    return definition ? this.#entryOf(definition) : undefined;
  }

  resolve(name: string): { server: string; tool: string } | undefined {
    const definition = this.#registry.resolve(name) ?? this.#resourceTool(name);
    if (definition) return { server: definition.server, tool: definition.tool };
    return this.#splitServerTool(name);
  }

  async call(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<ToolResult> {
    const onError = options.onError ?? this.#options.onError ?? "throw";
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

  async reload(): Promise<ReloadSummary> {
    if (this.#closing)
      throw new McpBridgeError(ErrorCode.BridgeClosed, "The bridge is closed; start a new one.");
    const next = await loadConfig(loadOptionsOf(this.#options));
    for (const warning of next.warnings) this.#logger.warn(warning.message, { ...warning });
    const diff = diffServers(this.config.servers, next.servers);
    const settingsChanged = JSON.stringify(next.settings) !== JSON.stringify(this.config.settings);
    this.config = next;
    if (settingsChanged) {
      this.#registry = this.#newRegistry();
      this.#surface.settingsChanged();
      for (const connection of this.#connections.values()) this.#publishTools(connection, connection.tools());
    }
    await Promise.all(
      [...diff.removed, ...diff.changed].map(async (definition) => {
        const connection = this.#connections.get(definition.name);
        this.#connections.delete(definition.name);
        this.#registry.removeServer(definition.name);
        await connection?.close();
      }),
    );
    const starting: ServerConnection[] = [];
    for (const definition of [...diff.changed, ...diff.added]) {
      const connection = await this.#addConnection(definition);
      if (connection) starting.push(connection);
    }
    const pending = Promise.all(starting.map((connection) => connection.start()));
    if (this.#options.wait !== false) await pending;
    return {
      added: diff.added.map((d) => d.name),
      removed: diff.removed.map((d) => d.name),
      restarted: diff.changed.map((d) => d.name),
      unchanged: diff.unchanged.map((d) => d.name),
    };
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = (async () => {
        this.#watcher?.close();
        this.#watcher = undefined;
        await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
        this.#events.clear();
      })();
    }
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // --- internals ---

  #newRegistry(): ToolRegistry {
    const settings = this.config.settings;
    const registry = new ToolRegistry({
      toolNameFormat: settings.toolNameFormat,
      descriptionPrefix: settings.descriptionPrefix,
      reservedNames: this.#options.reservedToolNames ?? [],
      ...(this.#options.toolFilter ? { filter: this.#options.toolFilter } : {}),
      logger: this.#logger,
    });
    registry.declareServers(this.config.servers.map((server) => server.name));
    return registry;
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

  #selected(definition: ServerDefinition): boolean {
    const only = this.#options.only;
    return only === undefined || only.includes(definition.name);
  }

  async #addConnection(definition: ServerDefinition): Promise<ServerConnection | undefined> {
    if (!this.#selected(definition)) return undefined;
    const enabled = definition.enabled && this.config.settings.enabled;
    const secrets = secretsOf(definition);
    const maxResultChars = definition.maxResultChars ?? this.config.settings.maxResultChars;
    const auth =
      enabled && definition.transport !== "stdio"
        ? await createAuthHandle(definition, { ...this.#options.auth, env: this.#options.env ?? process.env })
        : undefined;
    const connection = createConnection(enabled ? definition : { ...definition, enabled: false }, {
      logger: this.#logger,
      clientInfo: this.#options.clientInfo ?? PACKAGE_CLIENT_INFO,
      redact: (text) => redactText(text, secrets),
      ...(this.#options.env ? { hostEnv: this.#options.env } : {}),
      ...(auth ? { auth, ...(auth.fetch ? { fetch: auth.fetch } : {}) } : {}),
      // Keep comfortably more than the result will show, so truncation (not the transport) decides.
      stringCapBytes: Math.max(1024 * 1024, maxResultChars * 8),
      configureClient: (client) => {
        registerElicitationModes(client, {
          server: definition.name,
          handler: this.#options.onElicitation ?? applySchemaDefaults,
          hostHandler: this.#options.onElicitation !== undefined,
          logger: this.#logger,
        });
        this.#surface.configureClient(definition, client);
      },
    });
    if (auth) {
      const close = connection.close.bind(connection);
      connection.close = async () => {
        await close();
        await auth.close();
      };
    }
    connection.on("toolsChanged", (tools) => this.#publishTools(connection, tools));
    connection.on("stateChanged", (status) => {
      this.#surface.stateChanged(connection, status);
      this.#events.emit("serverStateChanged", status);
    });
    this.#connections.set(definition.name, connection);
    return connection;
  }

  #publishTools(connection: ServerConnection, tools: readonly Tool[]): void {
    if (this.#connections.get(connection.name) !== connection) return;
    if (tools.length === 0) this.#registry.removeServer(connection.name);
    else {
      this.#registry.setServerTools(connection.name, connection.definition.tools, tools);
    }
    this.#events.emit("toolsChanged", {
      server: connection.name,
      tools: this.tools({ server: connection.name }),
    });
  }

  #entryOf(definition: ToolDefinition): ToolEntry {
    let entry = this.#entries.get(definition);
    if (!entry) {
      let flat: ReturnType<typeof flattenParameters> | undefined;
      entry = {
        ...definition,
        call: (args, options) => this.call(definition.name, args, options),
        flatParameters: () => {
          flat ??= flattenParameters(definition.inputSchema);
          return flat;
        },
      };
      this.#entries.set(definition, entry);
    }
    return entry;
  }

  /** `server/tool` with original names, for servers whose tools are not listed yet (lazy, idle, failed). */
  #splitServerTool(name: string): { server: string; tool: string } | undefined {
    for (let index = name.indexOf("/"); index !== -1; index = name.indexOf("/", index + 1)) {
      if (index === 0) continue;
      const server = name.slice(0, index);
      if (this.#connections.has(server)) return { server, tool: name.slice(index + 1) };
    }
    return undefined;
  }

  async #call(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolResult> {
    if (this.#closing)
      throw new McpBridgeError(ErrorCode.BridgeClosed, "The bridge is closed; start a new one.");
    const own = this.#resourceTool(name);
    if (own) {
      return callResourceTool(this.#surface.resources, own.tool, args, {
        ...options,
        maxResultChars: options.maxResultChars ?? this.config.settings.maxResultChars,
      });
    }
    let definition = this.#registry.resolve(name);
    if (!definition) {
      const target = this.#splitServerTool(name);
      const connection = target && this.#connections.get(target.server);
      if (connection && target) {
        await connection.ensureConnected({
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }),
        });
        definition = this.#registry.resolve(name);
      }
      if (!definition) throw this.#unknownTool(name, target);
    }
    const connection = this.#connections.get(definition.server);
    if (!connection) throw this.#unknownTool(name, undefined);
    const server = connection.definition;
    if (options.validateArguments ?? this.#options.validateArguments) {
      const issues = validateArguments(definition.inputSchema, args);
      if (issues.length > 0) {
        throw new InvalidArgumentsError(
          `Invalid arguments for tool "${definition.name}" (server "${definition.server}"): ${issues
            .map((issue) => `${issue.path || "(root)"}: ${issue.message}`)
            .join("; ")}`,
          { server: definition.server, tool: definition.tool, issues },
        );
      }
    }
    const started = performance.now();
    const timeoutMs = options.timeout ?? server.callTimeoutMs;
    try {
      const callOptions = {
        timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      };
      const raw = await (this.#surface.callAsTask(connection, args, {
        ...callOptions,
        server: definition.server,
        tool: definition.tool,
      }) ??
        connection.callTool(definition.tool, args, {
          ...callOptions,
          ...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true } : {}),
        }));
      const result = toToolResult(raw, {
        maxResultChars:
          options.maxResultChars ?? server.maxResultChars ?? this.config.settings.maxResultChars,
      });
      this.#stats.record(
        definition.server,
        definition.name,
        performance.now() - started,
        result.isError ? "error" : "ok",
      );
      if (result.isError && (options.onError ?? this.#options.onError ?? "throw") === "throw") {
        throw new ToolExecutionError(
          `Tool "${definition.tool}" on server "${definition.server}" reported an error: ${result.text.slice(0, 1000)}`,
          { server: definition.server, tool: definition.tool, result },
        );
      }
      return result;
    } catch (error) {
      if (!(error instanceof ToolExecutionError && error.result !== undefined)) {
        const outcome =
          error instanceof McpBridgeError && error.code === ErrorCode.ToolTimeout ? "timeout" : "error";
        this.#stats.record(definition.server, definition.name, performance.now() - started, outcome);
      }
      throw error;
    }
  }

  #unknownTool(name: string, target: { server: string; tool: string } | undefined): McpBridgeError {
    if (target) {
      const status = this.#connections.get(target.server)?.status();
      if (status && status.state !== "connected") {
        return new ServerConnectionError(
          ErrorCode.ServerUnavailable,
          `Tool "${target.tool}" cannot be called: server "${target.server}" is ${status.state}${status.lastError ? ` (${status.lastError.message})` : ""}.`,
          { server: target.server, tool: target.tool },
        );
      }
      return new ToolNotFoundError(
        `Server "${target.server}" has no tool "${target.tool}". Run \`mcp-bridge tools --server ${target.server}\` to list its tools.`,
        { server: target.server, tool: target.tool },
      );
    }
    const known = this.#registry.list().length;
    return new ToolNotFoundError(
      `Unknown tool "${name}" (${known} tools registered). Use an exposed name from \`mcp-bridge tools\` or "server/tool".`,
      { tool: name },
    );
  }

  async #enforceRequired(): Promise<void> {
    if (this.#options.enforceRequired === false) return;
    const down = this.config.servers.filter(
      (definition) =>
        definition.required &&
        definition.enabled &&
        this.#connections.get(definition.name)?.status().state === "failed",
    );
    if (down.length === 0) return;
    const reasons = down
      .map((definition) => {
        const status = this.#connections.get(definition.name)?.status();
        return `"${definition.name}": ${status?.lastError?.message ?? "failed"}`;
      })
      .join("; ");
    await this.close();
    throw new ServerConnectionError(
      ErrorCode.ServerRequired,
      `Required server${down.length > 1 ? "s" : ""} could not start: ${reasons}. Fix the server or set required = false.`,
      { server: down[0]?.name ?? "" },
    );
  }

  #watchConfig(): void {
    const file = this.config.file;
    if (!this.config.settings.autoReload || !file) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#watcher = watch(file, () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          this.reload().catch((error: unknown) =>
            this.#logger.error("Reloading the config failed; keeping the running servers", {
              error: error instanceof Error ? error.message : String(error),
            }),
          );
        }, 200);
        timer.unref();
      });
      this.#watcher.unref();
    } catch (error) {
      this.#logger.warn(`Cannot watch ${file} for changes; autoReload is off`, { error: String(error) });
    }
  }
}

function notStartedStatus(definition: ServerDefinition): ServerStatus {
  return {
    name: definition.name,
    transport: definition.transport,
    state: definition.enabled ? "idle" : "disabled",
    toolCount: 0,
    restarts: 0,
    stderrTail: [],
  };
}
