import type { Client, Icon, Prompt, PromptArgument } from "@modelcontextprotocol/client";
import { followListChanges } from "../../connection/list-changed.js";
import { promptArgumentsMissing, promptNotFound } from "../../errors/index.js";
import { ToolRegistry } from "../../registry/registry.js";
import {
  missingPromptArguments,
  type PromptMessages,
  promptArgumentsSchema,
  toPromptMessages,
} from "../../results/prompt-messages.js";
import { definedOnly } from "../../util/defined.js";
import { keepUpstream } from "../../util/upstream.js";
import {
  assertOpen,
  type FeatureContext,
  maxResultCharsOf,
  type RequestOptions,
  requireConnection,
  sessionRequestOptions,
} from "./feature-context.js";
import { listEvery, ServerListing } from "./listing.js";
import type { SessionClients } from "./session-clients.js";

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
  readonly #context: FeatureContext;
  readonly #sessions: SessionClients;
  readonly #listing: ServerListing<Prompt>;
  /** Made on the first listing (a bridge whose host never asks for prompts builds none). */
  #names: ToolRegistry | undefined;
  /** Per server, the raw prompt of each registered prompt by name (a server's update touches its own). */
  readonly #raw = new Map<string, Map<string, Prompt>>();
  /** The listing the registry holds for each server (cached listings are replaced, never mutated). */
  readonly #registered = new Map<string, readonly Prompt[]>();
  readonly #screenedListings = new WeakMap<readonly Prompt[], readonly Prompt[]>();

  constructor(context: FeatureContext, sessions: SessionClients) {
    this.#context = context;
    this.#sessions = sessions;
    this.#listing = new ServerListing(context, sessions, {
      method: "prompts/list",
      warnAs: "prompts",
      capability: "prompts",
      pinAs: "prompt",
      load: async (connection, client, options) => {
        if (!client.getServerCapabilities()?.prompts) return [];
        const listed = await listEvery("prompts", context.logger, connection, client, options);
        return listed.filter(
          (prompt) => !!prompt && typeof prompt.name === "string" && prompt.name.length > 0,
        );
      },
    });
  }

  /** What a new client needs before it connects: its `list_changed` drops the cached listing. */
  register(client: Client, server: string): void {
    followListChanges(client, "prompts", () => {
      this.#listing.invalidate(client);
      this.#context.events.emit("promptsChanged", { server });
    });
  }

  /** Settings changed (name format): the names are made again from the listings on the next one. */
  rebuild(): void {
    this.#names = undefined;
    this.#registered.clear();
  }

  /** A server that stopped: its prompts leave the list. */
  removeServer(server: string): void {
    this.#registered.delete(server);
    this.#raw.delete(server);
    this.#names?.removeServer(server);
  }

  /** Every connected server's prompts (all pages), or one server's (connecting it when idle). */
  async list(options: RequestOptions = {}): Promise<PromptEntry[]> {
    const listed = await this.#listing.byServer(options);
    for (const part of listed) if (!part.failed) this.#register(part.connection.name, this.#screened(part));
    const shown = new Set(listed.map((part) => part.connection.name));
    return this.#entries().filter((entry) => shown.has(entry.server));
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
    const raw = this.#raw.get(entry.server)?.get(entry.prompt) as Prompt;
    const missing = missingPromptArguments(raw, args);
    if (missing.length > 0) {
      throw promptArgumentsMissing({ server: entry.server, prompt: entry.prompt, missing });
    }
    // Prompt arguments are strings on the wire.
    const stringArgs: Record<string, string> = {};
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined || value === null) continue;
      stringArgs[key] = typeof value === "string" ? value : JSON.stringify(value);
    }
    const connection = requireConnection(this.#context, entry.server);
    const result = await this.#sessions.request(
      connection,
      { method: "prompts/get", item: entry.prompt },
      sessionRequestOptions(connection, options),
      (client, requestOptions) =>
        client.getPrompt({ name: (entry as PromptEntry).prompt, arguments: stringArgs }, requestOptions),
    );
    const guard = this.#context.promptGuard;
    const checked = guard ? await guard.result(entry.server, entry.prompt, stringArgs, result) : result;
    const messages = toPromptMessages(entry.server, entry.prompt, checked, {
      maxResultChars: options.maxResultChars ?? maxResultCharsOf(this.#context, connection),
    });
    return keepUpstream(messages, checked);
  }

  /** The prompt under an exposed name or `server/prompt`, listing servers first when needed. */
  async lookup(name: string, options: RequestOptions = {}): Promise<PromptEntry> {
    assertOpen(this.#context);
    let entry = this.#find(name);
    if (!entry) {
      const split = this.#splitServerPrompt(name);
      await this.list(split ? { ...options, server: split.server } : options);
      entry = this.#find(name);
    }
    if (entry) return entry;
    throw promptNotFound({ name });
  }

  #find(name: string): PromptEntry | undefined {
    const definition = this.#names?.resolve(name);
    return definition ? this.#entryOf(definition.server, definition.tool, definition.name) : undefined;
  }

  #splitServerPrompt(name: string): { server: string; prompt: string } | undefined {
    for (let index = name.indexOf("/"); index !== -1; index = name.indexOf("/", index + 1)) {
      const server = name.slice(0, index);
      if (index > 0 && this.#context.servers.connections().has(server))
        return { server, prompt: name.slice(index + 1) };
    }
    return undefined;
  }

  #entries(): PromptEntry[] {
    return (this.#names?.list() ?? [])
      .map((definition) => this.#entryOf(definition.server, definition.tool, definition.name))
      .filter((entry): entry is PromptEntry => entry !== undefined);
  }

  #entryOf(server: string, prompt: string, name: string): PromptEntry | undefined {
    const raw = this.#raw.get(server)?.get(prompt);
    if (!raw) return undefined;
    const entry = definedOnly({
      name,
      server,
      prompt,
      title: typeof raw.title === "string" ? raw.title : undefined,
      description: typeof raw.description === "string" ? raw.description : undefined,
      arguments: Array.isArray(raw.arguments) ? raw.arguments : [],
      icons: Array.isArray(raw.icons) ? raw.icons : undefined,
    }) as PromptEntry;
    return keepUpstream(entry, raw);
  }

  /** A listing as the guardrails let it be published (one answer per listing, kept while it is cached). */
  #screened(part: {
    readonly connection: { readonly name: string };
    readonly items: readonly Prompt[];
  }): readonly Prompt[] {
    const guard = this.#context.promptGuard;
    if (!guard) return part.items;
    let screened = this.#screenedListings.get(part.items);
    if (!screened) {
      screened = guard.listing(part.connection.name, part.items);
      this.#screenedListings.set(part.items, screened);
    }
    return screened;
  }

  /** Gives the server's listed prompts their exposed names (again only when the listing changed). */
  #register(server: string, prompts: readonly Prompt[]): void {
    const names = this.#namesOf();
    if (this.#registered.get(server) === prompts) return;
    this.#raw.set(server, new Map(prompts.map((prompt) => [prompt.name, prompt])));
    // The registry wants tool-shaped entries: the arguments become the input schema.
    names.setServerTools(
      server,
      NO_FILTER,
      prompts.map((prompt) => ({
        name: prompt.name,
        inputSchema: promptArgumentsSchema(prompt),
        description: typeof prompt.description === "string" ? prompt.description : undefined,
        title: typeof prompt.title === "string" ? prompt.title : undefined,
      })),
    );
    this.#registered.set(server, prompts);
  }

  #namesOf(): ToolRegistry {
    if (this.#names) return this.#names;
    const { settings, servers } = this.#context.config;
    const names = new ToolRegistry({
      toolNameFormat: settings.toolNameFormat,
      descriptionPrefix: "",
      logger: this.#context.logger,
    });
    names.declareServers(servers.map((server) => server.name));
    this.#names = names;
    return names;
  }
}
