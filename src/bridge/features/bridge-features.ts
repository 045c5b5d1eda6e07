import type { Client } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../../config/model.js";
import type { ServerConnection } from "../../connection/connection.js";
import type { ServerStatus } from "../../connection/server-status.js";
import type { CompleteOptions } from "./completions.js";
import type { FeatureContext } from "./feature-context.js";
import type { SurfaceMethods } from "./feature-methods.js";
import { applyLogLevel, registerLogging } from "./logging.js";
import { PromptCatalog } from "./prompts.js";
import { ResourceCatalog } from "./resources.js";
import { ServerRoots } from "./roots.js";
import { registerSampling } from "./sampling.js";
import { SessionClients } from "./session-clients.js";
import type { SkillCatalog } from "./skills.js";

export type { CompleteOptions };

/**
 * The MCP features beyond tools, for one bridge: resources, prompts, completions, server logging,
 * roots, sampling and skills. The bridge hands every new SDK client of a server to `register` (before
 * it connects) and every state change to `stateChanged`; everything else reads the live `context`.
 * What a host never uses costs nothing: the skills and completion code is loaded on first use, and a
 * feature a server does not offer is never listed (its capability is checked first).
 */
export class BridgeFeatures {
  readonly context: FeatureContext;
  readonly sessions: SessionClients;
  readonly resources: ResourceCatalog;
  readonly prompts: PromptCatalog;
  readonly roots: ServerRoots;
  #skills: Promise<SkillCatalog> | undefined;

  constructor(context: FeatureContext) {
    this.context = context;
    this.sessions = new SessionClients(context.options.secrets.text, (name) =>
      context.servers.connections().get(name),
    );
    this.resources = new ResourceCatalog(context, this.sessions);
    this.prompts = new PromptCatalog(context, this.sessions);
    this.roots = new ServerRoots(context, this.sessions);
  }

  /** Installs every feature's handlers on a new client of the server, before it connects. */
  register(definition: ServerDefinition, client: Client): void {
    const server = definition.name;
    this.sessions.track(server, client);
    registerLogging(client, server, this.context);
    this.resources.register(client, server);
    this.prompts.register(client, server);
    this.roots.register(client, definition);
    registerSampling(client, definition, this.context);
  }

  stateChanged(connection: ServerConnection, status: ServerStatus): void {
    if (status.state === "connected") {
      const client = this.sessions.current(connection);
      if (!client) return;
      void applyLogLevel(
        client,
        connection.name,
        connection.definition.logLevel,
        this.context.logger,
        connection.definition.callTimeoutMs,
      );
      this.resources.resubscribe(connection);
    } else if (status.state === "failed" || status.state === "closed" || status.state === "disabled") {
      this.prompts.removeServer(connection.name);
    }
  }

  /** What the server's newest session declared in its handshake; undefined before one. */
  serverCapabilities(server: string): object | undefined {
    return this.sessions.latest(server)?.getServerCapabilities();
  }

  /** Settings changed (name format): prompt names are made again like tool names. */
  settingsChanged(): void {
    this.prompts.rebuild();
  }

  /** The bridge's methods for these features (part of the Bridge interface). */
  methods(): SurfaceMethods {
    return {
      resources: (options) => this.resources.list(options),
      resourceTemplates: (options) => this.resources.templates(options),
      readResource: (uri, options) => this.resources.read(uri, options),
      subscribe: (uri, listener, options) => this.resources.subscribe(uri, listener, options),
      prompts: (options) => this.prompts.list(options),
      getPrompt: (name, args, options) => this.prompts.get(name, args, options),
      complete: (ref, argument, options = {}) => this.#complete(ref, argument, options),
      skills: async (options) => (await this.#skillCatalog()).list(options),
      loadSkill: async (name, options) => (await this.#skillCatalog()).load(name, options),
      setRoots: (roots, options) => this.roots.setRoots(roots, options),
    };
  }

  async #complete(...[ref, argument, options]: Parameters<SurfaceMethods["complete"]>) {
    // Loaded on first use: most hosts never complete an argument.
    const { completeArgument } = await import("./completions.js");
    return completeArgument(this, ref, argument, options ?? {});
  }

  /** The skills code (and the SDK's skills extension with its frontmatter parsing) loads on first use. */
  #skillCatalog(): Promise<SkillCatalog> {
    this.#skills ??= import("./skills.js").then(
      ({ SkillCatalog }) => new SkillCatalog(this.context, this.sessions),
    );
    return this.#skills;
  }
}
