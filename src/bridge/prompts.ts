import type { Client, Icon, Prompt, PromptArgument } from "@modelcontextprotocol/client";
import type { ServerConnection } from "../connection/connection.js";
import { followListChanges } from "../connection/list-changed.js";
import { ErrorCode, errorMessages, InvalidArgumentsError, ServerRequestError } from "../errors/index.js";
import { ToolRegistry } from "../registry/registry.js";
import {
  missingPromptArguments,
  type PromptMessages,
  promptArgumentsSchema,
  toPromptMessages,
} from "../results/prompt.js";
import { errorText } from "../util/text-of.js";
import { keepUpstream } from "../util/upstream.js";
import {
  clientRequestOptions,
  listEvery,
  liveClients,
  PerClientCache,
  type RequestOptions,
  requireConnection,
  type SurfaceHost,
  sessionRequestOptions,
} from "./surface-host.js";

/** One prompt of one server, under a collision-free exposed name (the tools' naming rule). */
export interface PromptEntry {
  /** Exposed name: unique across servers, `^[A-Za-z0-9_-]{1,64}$`, in the configured tool name format. */
  readonly name: string;
  readonly server: string;
  /** The server's own prompt name. */
  readonly prompt: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgument[];
  readonly icons?: readonly Icon[];
}

export interface GetPromptOptions extends RequestOptions {
  readonly maxResultChars?: number;
}

const NO_FILTER = { include: [], exclude: [] } as const;

/**
 * Prompts of every server. Names go through a ToolRegistry of their own, so they follow exactly the
 * tools' rule (format, normalization, hash suffix on collision) without competing with tool names.
 */
export class PromptCatalog {
  readonly #host: SurfaceHost;
  readonly #cache = new PerClientCache<Prompt[]>();
  #registry: ToolRegistry;
  readonly #format: () => string;
  /** The raw prompt of each registered server prompt, keyed `server\0prompt`. */
  readonly #raw = new Map<string, Prompt>();
  /** The listing the registry holds for each server (cached listings are replaced, never mutated). */
  readonly #registered = new Map<string, readonly Prompt[]>();

  constructor(host: SurfaceHost, toolNameFormat: () => string, servers: () => readonly string[]) {
    this.#host = host;
    this.#format = toolNameFormat;
    this.#registry = this.#newRegistry(servers());
  }

  /** Settings changed (name format): rebuild the names from the listings already held. */
  rebuild(servers: readonly string[]): void {
    this.#registry = this.#newRegistry(servers);
    this.#registered.clear();
  }

  configureClient(client: Client, onListChanged: () => void): void {
    followListChanges(client, "prompts", () => {
      this.#cache.invalidate(client);
      onListChanged();
    });
  }

  /** A server that stopped: its prompts leave the list. */
  removeServer(server: string): void {
    this.#registered.delete(server);
    for (const key of [...this.#raw.keys()]) if (key.startsWith(`${server}\0`)) this.#raw.delete(key);
    this.#registry.removeServer(server);
  }

  /** Every connected server's prompts (all pages), or one server's (connecting it when idle). */
  async list(options: RequestOptions = {}): Promise<PromptEntry[]> {
    this.#host.assertOpen();
    if (options.server !== undefined) {
      const connection = requireConnection(this.#host, options.server);
      await this.#host.sessions.request(
        connection,
        { method: "prompts/list" },
        sessionRequestOptions(this.#host, connection, options),
        (client, requestOptions) => this.#refresh(connection, client, requestOptions),
      );
      return this.#entries().filter((entry) => entry.server === options.server);
    }
    await Promise.all(
      liveClients(this.#host).map(({ connection, client }) =>
        this.#refresh(connection, client, clientRequestOptions(this.#host, connection, options)).catch(
          (error: unknown) =>
            this.#host.logger.warn(`Listing the prompts of server "${connection.name}" failed`, {
              server: connection.name,
              error: errorText(error),
            }),
        ),
      ),
    );
    const live = new Set(liveClients(this.#host).map(({ connection }) => connection.name));
    return this.#entries().filter((entry) => live.has(entry.server));
  }

  /**
   * Gets a prompt by exposed name or `server/prompt`, checking its required arguments first (a missing
   * one is INVALID_ARGUMENTS naming server and prompt; nothing is sent).
   */
  async get(
    name: string,
    args: Readonly<Record<string, unknown>> = {},
    options: GetPromptOptions = {},
  ): Promise<PromptMessages> {
    const entry = await this.lookup(name, options);
    const raw = this.#raw.get(`${entry.server}\0${entry.prompt}`) as Prompt;
    const missing = missingPromptArguments(raw, args);
    if (missing.length > 0) {
      throw new InvalidArgumentsError(
        `Prompt "${entry.prompt}" (server "${entry.server}") needs the argument${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")}.`,
        {
          server: entry.server,
          issues: missing.map((path) => ({ path, message: "is required" })),
        },
      );
    }
    // Prompt arguments are strings on the wire.
    const stringArgs: Record<string, string> = {};
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined || value === null) continue;
      stringArgs[key] = typeof value === "string" ? value : JSON.stringify(value);
    }
    const connection = requireConnection(this.#host, entry.server);
    const result = await this.#host.sessions.request(
      connection,
      { method: "prompts/get", item: entry.prompt },
      sessionRequestOptions(this.#host, connection, options),
      (client, requestOptions) =>
        client.getPrompt({ name: (entry as PromptEntry).prompt, arguments: stringArgs }, requestOptions),
    );
    const messages = toPromptMessages(entry.server, entry.prompt, result, {
      maxResultChars: options.maxResultChars ?? this.#host.maxResultChars(connection),
    });
    return keepUpstream(messages, result);
  }

  /** The prompt under an exposed name or `server/prompt`, listing servers first when needed. */
  async lookup(name: string, options: RequestOptions = {}): Promise<PromptEntry> {
    let entry = this.#find(name);
    if (!entry) {
      const split = this.#splitServerPrompt(name);
      await this.list(split ? { ...options, server: split.server } : options);
      entry = this.#find(name);
    }
    if (entry) return entry;
    throw new ServerRequestError(ErrorCode.PromptNotFound, errorMessages.promptNotFound(name), {
      method: "prompts/get",
      item: name,
    });
  }

  #find(name: string): PromptEntry | undefined {
    const definition = this.#registry.resolve(name);
    return definition ? this.#entryOf(definition.server, definition.tool, definition.name) : undefined;
  }

  #splitServerPrompt(name: string): { server: string; prompt: string } | undefined {
    for (let index = name.indexOf("/"); index !== -1; index = name.indexOf("/", index + 1)) {
      const server = name.slice(0, index);
      if (index > 0 && this.#host.connection(server)) return { server, prompt: name.slice(index + 1) };
    }
    return undefined;
  }

  #entries(): PromptEntry[] {
    return this.#registry
      .list()
      .map((definition) => this.#entryOf(definition.server, definition.tool, definition.name))
      .filter((entry): entry is PromptEntry => entry !== undefined);
  }

  #entryOf(server: string, prompt: string, name: string): PromptEntry | undefined {
    const raw = this.#raw.get(`${server}\0${prompt}`);
    if (!raw) return undefined;
    const entry: PromptEntry = {
      name,
      server,
      prompt,
      ...(typeof raw.title === "string" ? { title: raw.title } : {}),
      ...(typeof raw.description === "string" ? { description: raw.description } : {}),
      arguments: Array.isArray(raw.arguments) ? raw.arguments : [],
      ...(Array.isArray(raw.icons) ? { icons: raw.icons } : {}),
    };
    return keepUpstream(entry, raw);
  }

  async #refresh(
    connection: ServerConnection,
    client: Client,
    requestOptions: { timeout?: number; signal?: AbortSignal },
  ): Promise<void> {
    const prompts = await this.#cache.get(client, async () => {
      if (!client.getServerCapabilities()?.prompts) return [];
      const listed = await listEvery("prompts", this.#host, connection, client, requestOptions);
      return listed.filter((prompt) => !!prompt && typeof prompt.name === "string" && prompt.name.length > 0);
    });
    if (this.#registered.get(connection.name) === prompts) return;
    for (const key of [...this.#raw.keys()])
      if (key.startsWith(`${connection.name}\0`)) this.#raw.delete(key);
    for (const prompt of prompts) this.#raw.set(`${connection.name}\0${prompt.name}`, prompt);
    // The registry wants tool-shaped entries: the arguments become the input schema.
    this.#registry.setServerTools(
      connection.name,
      NO_FILTER,
      prompts.map((prompt) => ({
        name: prompt.name,
        inputSchema: promptArgumentsSchema(prompt),
        ...(typeof prompt.description === "string" ? { description: prompt.description } : {}),
        ...(typeof prompt.title === "string" ? { title: prompt.title } : {}),
      })),
    );
    this.#registered.set(connection.name, prompts);
  }

  #newRegistry(servers: readonly string[]): ToolRegistry {
    const registry = new ToolRegistry({
      toolNameFormat: this.#format(),
      descriptionPrefix: "",
      logger: this.#host.logger,
    });
    registry.declareServers(servers);
    return registry;
  }
}
