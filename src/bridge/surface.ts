import { dirname } from "node:path";
import type { CallToolResult, Client, Root, Tool } from "@modelcontextprotocol/client";
import type { ResolvedConfig, ServerDefinition } from "../config/model.js";
import type { ServerConnection } from "../connection/connection.js";
import type { ServerStatus } from "../connection/server-status.js";
import type { Logger } from "../util/logger.js";
import type { SecretMask } from "../util/redact.js";
import { errorText } from "../util/text-of.js";
import { type CompleteRef, type CompletionResult, completeArgument } from "./completions.js";
import { applyLogLevel, registerServerLogging, type ServerLogMessage } from "./logging.js";
import { PromptCatalog } from "./prompts.js";
import { ResourceCatalog } from "./resources.js";
import { registerRoots, toRoot } from "./roots.js";
import { registerSampling, type SamplingHandler, samplingPolicyOf } from "./sampling.js";
import { SessionClients } from "./sessions.js";
import { SkillCatalog } from "./skills.js";
import { closedError, type RequestOptions, type SurfaceHost } from "./surface-host.js";
import { callToolAsTask, runsAsTask, type TaskCallOptions, taskSupportOf } from "./tasks.js";

export interface SurfaceOptions {
  readonly logger: Logger;
  readonly config: () => ResolvedConfig;
  readonly connections: () => ReadonlyMap<string, ServerConnection>;
  readonly closed: () => boolean;
  readonly onSampling?: SamplingHandler;
  readonly onResourcesChanged: (server: string) => void;
  readonly onPromptsChanged: (server: string) => void;
  readonly onServerLog: (message: ServerLogMessage) => void;
  /** The bridge's secrets, masked in server log messages before anyone sees them. */
  readonly secrets: SecretMask;
}

/**
 * Everything of MCP beyond tools, for one bridge: resources, prompts, completions, server logging,
 * roots and sampling. The bridge hands every new SDK client of a server to `configureClient` (before
 * it connects) and every state change to `stateChanged`.
 */
export class ClientSurface {
  readonly sessions: SessionClients;
  readonly resources: ResourceCatalog;
  readonly prompts: PromptCatalog;
  readonly skills: SkillCatalog;
  readonly #options: SurfaceOptions;
  readonly #host: SurfaceHost;
  /** Roots set through `setRoots`: for all servers (key "") or one server. */
  readonly #rootOverrides = new Map<string, readonly Root[]>();

  constructor(options: SurfaceOptions) {
    this.#options = options;
    this.sessions = new SessionClients(options.secrets.text, (name) => options.connections().get(name));
    const config = options.config;
    this.#host = {
      sessions: this.sessions,
      logger: options.logger,
      connections: () => [...options.connections().values()],
      connection: (name) => options.connections().get(name),
      timeoutMs: (connection) => connection.definition.callTimeoutMs,
      maxResultChars: (connection) =>
        connection.definition.maxResultChars ?? config().settings.maxResultChars,
      assertOpen: () => {
        if (options.closed()) throw closedError();
      },
    };
    this.resources = new ResourceCatalog(this.#host);
    this.skills = new SkillCatalog(this.#host);
    this.prompts = new PromptCatalog(
      this.#host,
      () => config().settings.toolNameFormat,
      () => config().servers.map((server) => server.name),
    );
  }

  configureClient(definition: ServerDefinition, client: Client): void {
    const server = definition.name;
    this.sessions.track(server, client);
    registerServerLogging(
      client,
      server,
      this.#options.logger,
      this.#options.secrets,
      this.#options.onServerLog,
    );
    this.resources.configureClient(server, client, () => this.#options.onResourcesChanged(server));
    this.prompts.configureClient(client, () => this.#options.onPromptsChanged(server));
    registerRoots(client, () => this.rootsFor(definition));
    if (this.#options.onSampling) {
      registerSampling(client, {
        server,
        handler: this.#options.onSampling,
        policy: samplingPolicyOf(definition.sampling, this.#options.config().settings.sampling),
        timeoutMs: definition.callTimeoutMs,
        logger: this.#options.logger,
      });
    }
  }

  stateChanged(connection: ServerConnection, status: ServerStatus): void {
    if (status.state === "connected") {
      const client = this.sessions.current(connection);
      if (!client) return;
      void applyLogLevel(
        client,
        connection.name,
        connection.definition.logLevel,
        this.#options.logger,
        connection.definition.callTimeoutMs,
      );
      this.resources.resubscribe(connection);
    } else if (status.state === "failed" || status.state === "closed" || status.state === "disabled") {
      this.prompts.removeServer(connection.name);
    }
  }

  /**
   * The server's roots: set by `setRoots`, else configured (server, then global), else none. Never a
   * default folder: server-filesystem replaces the folders in its `args` with any roots it is given, so
   * a config copied from another host (which declares none) would lose them, and the config's own folder
   * holds the OAuth tokens and the trust store.
   */
  rootsFor(definition: ServerDefinition): readonly Root[] {
    const override = this.#rootOverrides.get(definition.name) ?? this.#rootOverrides.get("");
    if (override) return override;
    const config = this.#options.config();
    const base = config.file ? dirname(config.file) : process.cwd();
    const configured = definition.roots ?? config.settings.roots;
    return configured ? configured.map((entry) => toRoot(entry, base)) : [];
  }

  /** Replaces the roots (of one server or all) and tells the connected servers the list changed. */
  async setRoots(roots: readonly (string | Root)[], options: { server?: string } = {}): Promise<void> {
    this.#host.assertOpen();
    const base = this.#options.config().file ? dirname(this.#options.config().file as string) : process.cwd();
    const normalized = roots.map((root) => (typeof root === "string" ? toRoot(root, base) : root));
    this.#rootOverrides.set(options.server ?? "", normalized);
    if (options.server === undefined) {
      for (const key of [...this.#rootOverrides.keys()]) if (key !== "") this.#rootOverrides.delete(key);
    }
    const targets = this.#host
      .connections()
      .filter((connection) => options.server === undefined || connection.name === options.server);
    await Promise.all(
      targets.map(async (connection) => {
        const client = this.sessions.current(connection);
        await client?.sendRootsListChanged().catch((error: unknown) =>
          this.#options.logger.warn(`Telling server "${connection.name}" that the roots changed failed`, {
            server: connection.name,
            error: errorText(error),
          }),
        );
      }),
    );
  }

  complete(ref: CompleteRef, argument: { name: string; value: string }, options: CompleteOptions = {}) {
    return completeArgument(this.#host, this.prompts, ref, argument, options);
  }

  /**
   * Runs the call as a task when the tool declares task support (required, or optional on a server
   * that runs tool calls as tasks); undefined when the tool is an ordinary one.
   */
  /** What the server's newest session declared in its handshake; undefined before one. */
  serverCapabilities(server: string): object | undefined {
    return this.sessions.latest(server)?.getServerCapabilities();
  }

  callAsTask(
    connection: ServerConnection,
    args: Record<string, unknown> | undefined,
    options: TaskCallOptions,
  ): Promise<CallToolResult> | undefined {
    // The tool first: for an ordinary tool (nearly every call) that one lookup is all it costs.
    const tool = toolByName(connection.tools()).get(options.tool);
    if (taskSupportOf(tool) === "forbidden") return undefined;
    const client = this.sessions.current(connection);
    if (!client || !runsAsTask(tool, client)) return undefined;
    return callToolAsTask(client, args, options);
  }

  /** Settings changed (name format): prompt names are rebuilt like tool names. */
  settingsChanged(): void {
    this.prompts.rebuild(this.#options.config().servers.map((server) => server.name));
  }
}

export interface CompleteOptions extends RequestOptions {
  /** Values of the other arguments already chosen (narrows the suggestions). */
  readonly context?: Readonly<Record<string, string>>;
}

export type { CompletionResult };

/**
 * Tools by name, per listed array: a connection replaces its array only when its tools change, so
 * the task check on every call is one lookup instead of a scan of the server's whole tool list.
 */
const indexes = new WeakMap<readonly Tool[], Map<string, Tool>>();
function toolByName(tools: readonly Tool[]): Map<string, Tool> {
  let index = indexes.get(tools);
  if (!index) {
    index = new Map();
    // The first tool of a name wins, as a scan would find it.
    for (const tool of tools) if (!index.has(tool.name)) index.set(tool.name, tool);
    indexes.set(tools, index);
  }
  return index;
}
