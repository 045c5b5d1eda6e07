import type {
  Client,
  Prompt,
  Resource,
  ResourceTemplateType,
  RequestOptions as SdkRequestOptions,
} from "@modelcontextprotocol/client";
import { MAX_LIST_PAGES, type ServerConnection } from "../../connection/connection.js";
import { appendAll } from "../../util/append.js";
import type { Logger } from "../../util/logger.js";
import { errorText } from "../../util/text-of.js";
import type { PinKind } from "../api.js";
import {
  assertOpen,
  connectedServers,
  type FeatureContext,
  type RequestOptions,
  requireConnection,
  sessionRequestOptions,
} from "./feature-context.js";
import type { SessionClients } from "./session-clients.js";

/** What one listing of the servers is: the MCP method, how one server's list is loaded, whether it is cached. */
export interface ListingSpec<T> {
  /** The MCP method, for errors and the log (`resources/list`). */
  readonly method: string;
  /** What is listed, for the log ("resources"); undefined: a failing server is skipped silently. */
  readonly warnAs: string | undefined;
  /**
   * One server's whole list on one of its sessions (every page). Cached per session unless `fresh`
   * (a `list_changed` of that session drops it).
   */
  readonly load: (connection: ServerConnection, client: Client, options: SdkRequestOptions) => Promise<T[]>;
  /** Listed afresh on every call (skills: the SDK caches by the server's `ttlMs`). */
  readonly fresh?: boolean;
  /** Checked against the server's pins as this kind of definition (prompts, resource templates). */
  readonly pinAs?: PinKind;
  /**
   * The server capability that offers these items (`resources`, `prompts`): a server not started yet
   * that declared it when its tools were cached is started by an all-servers listing.
   */
  readonly capability?: string;
}

/** One server's part of a listing. */
export interface ServerItems<T> {
  readonly connection: ServerConnection;
  readonly items: T[];
  /** The server's listing failed (an all-servers listing then gives it no items). */
  readonly failed: boolean;
}

/**
 * The one listing routine of resources, resource templates, prompts and skills: every connected
 * server's list (or one server's, connecting it when idle), loaded through the server's session,
 * cached per session and dropped on `list_changed`. A server that fails to list is left out of an
 * all-servers listing (and said in the log); a listing of one named server rejects with its error.
 */
export class ServerListing<T> {
  readonly #context: FeatureContext;
  readonly #sessions: SessionClients;
  readonly #spec: ListingSpec<T>;
  readonly #cache = new WeakMap<Client, Promise<T[]>>();

  constructor(context: FeatureContext, sessions: SessionClients, spec: ListingSpec<T>) {
    this.#context = context;
    this.#sessions = sessions;
    this.#spec = spec;
  }

  /** Every item of every connected server (or of `options.server`), in server order. */
  async list(options: RequestOptions = {}): Promise<T[]> {
    return (await this.byServer(options)).flatMap((part) => part.items);
  }

  /** The same, server by server; `quiet`: a failing server is not said in the log. */
  async byServer(options: RequestOptions = {}, quiet = false): Promise<ServerItems<T>[]> {
    assertOpen(this.#context);
    if (options.server !== undefined) {
      const connection = requireConnection(this.#context, options.server);
      return [{ connection, items: await this.#request(connection, options), failed: false }];
    }
    return Promise.all(
      connectedServers(this.#context, this.#spec.capability).map(async (connection) => {
        try {
          return { connection, items: await this.#request(connection, options), failed: false };
        } catch (error) {
          if (!quiet && this.#spec.warnAs !== undefined) {
            this.#context.logger.warn(
              `Listing the ${this.#spec.warnAs} of server "${connection.name}" failed`,
              {
                server: connection.name,
                error: errorText(error),
              },
            );
          }
          return { connection, items: [], failed: true };
        }
      }),
    );
  }

  /** One server's list on this session: the cached one, else loaded (a failed load is not cached). */
  of(connection: ServerConnection, client: Client, options: SdkRequestOptions): Promise<T[]> {
    if (this.#spec.fresh) return this.#spec.load(connection, client, options);
    let cached = this.#cache.get(client);
    if (!cached) {
      const loading = this.#load(connection, client, options);
      cached = loading;
      this.#cache.set(client, loading);
      loading.catch(() => {
        if (this.#cache.get(client) === loading) this.#cache.delete(client);
      });
    }
    return cached;
  }

  /** One server's list, checked against its pins when the spec says so (a drift is reported there). */
  async #load(connection: ServerConnection, client: Client, options: SdkRequestOptions): Promise<T[]> {
    const items = await this.#spec.load(connection, client, options);
    const kind = this.#spec.pinAs;
    if (kind === undefined) return items;
    const named = items as unknown as { readonly name: string }[];
    const setting = this.#context.config.settings.onDrift;
    return [
      ...this.#context.pins.check(connection.definition, kind, named, setting).admitted,
    ] as unknown as T[];
  }

  /** The session's server said the list changed. */
  invalidate(client: Client): void {
    this.#cache.delete(client);
  }

  #request(connection: ServerConnection, options: RequestOptions): Promise<T[]> {
    return this.#sessions.request(
      connection,
      { method: this.#spec.method },
      sessionRequestOptions(connection, options),
      (client, requestOptions) => this.of(connection, client, requestOptions),
    );
  }
}

/**
 * Walks a paginated listing with explicit cursors, stopping at a repeated cursor or MAX_LIST_PAGES
 * (said in the log, never silently).
 */
export async function listAllPages<T>(
  server: string,
  method: string,
  logger: Logger,
  fetchPage: (
    cursor: string | undefined,
  ) => Promise<{ items: readonly T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await fetchPage(cursor);
    appendAll(items, Array.isArray(result.items) ? result.items : []);
    cursor = result.nextCursor;
    if (!cursor) return items;
    if (seen.has(cursor)) {
      logger.warn(`Server "${server}" repeated a ${method} cursor; the listing stops there`, { server });
      return items;
    }
    seen.add(cursor);
  }
  logger.warn(`Server "${server}" sent more than ${MAX_LIST_PAGES} ${method} pages; the rest is ignored`, {
    server,
  });
  return items;
}

/** The paginated MCP listings, by what they list. */
interface Listed {
  readonly prompts: Prompt;
  readonly resources: Resource;
  readonly resourceTemplates: ResourceTemplateType;
}
type PageOf<K extends keyof Listed> = { items: readonly Listed[K][]; nextCursor?: string | undefined };
type PageParams = { cursor: string } | undefined;

const PAGES: {
  readonly [K in keyof Listed]: {
    readonly method: string;
    readonly page: (client: Client, params: PageParams, options: SdkRequestOptions) => Promise<PageOf<K>>;
  };
} = {
  prompts: {
    method: "prompts/list",
    page: async (client, params, options) => {
      const page = await client.listPrompts(params, options);
      return { items: page.prompts, nextCursor: page.nextCursor };
    },
  },
  resources: {
    method: "resources/list",
    page: async (client, params, options) => {
      const page = await client.listResources(params, options);
      return { items: page.resources, nextCursor: page.nextCursor };
    },
  },
  resourceTemplates: {
    method: "resources/templates/list",
    page: async (client, params, options) => {
      const page = await client.listResourceTemplates(params, options);
      return { items: page.resourceTemplates, nextCursor: page.nextCursor };
    },
  },
};

/** Every page of one listing of a server, bounded as `listAllPages` bounds it. */
export function listEvery<K extends keyof Listed>(
  kind: K,
  logger: Logger,
  connection: ServerConnection,
  client: Client,
  options: SdkRequestOptions,
): Promise<Listed[K][]> {
  const listing = PAGES[kind];
  return listAllPages<Listed[K]>(connection.name, listing.method, logger, (cursor) =>
    listing.page(client, cursor === undefined ? undefined : { cursor }, options),
  );
}
