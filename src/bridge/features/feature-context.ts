import type { Client, Prompt, Resource, ResourceTemplateType } from "@modelcontextprotocol/client";
import { MAX_LIST_PAGES, type ServerConnection } from "../../connection/connection.js";
import { ErrorCode, errorMessages, McpBridgeError, ServerConnectionError } from "../../errors/index.js";
import type { Logger } from "../../util/logger.js";
import type { SessionClients } from "./session-clients.js";

/** What the resource, prompt and completion surfaces need from the bridge (and nothing more). */
export interface SurfaceHost {
  readonly sessions: SessionClients;
  readonly logger: Logger;
  /** Every started connection, in config order. */
  connections(): readonly ServerConnection[];
  connection(name: string): ServerConnection | undefined;
  /** Default timeout of a request to this server (its call timeout). */
  timeoutMs(connection: ServerConnection): number;
  maxResultChars(connection: ServerConnection): number;
  /** Throws BRIDGE_CLOSED once the bridge is closing. */
  assertOpen(): void;
}

/** Per-request options shared by resources, prompts and completions. */
export interface RequestOptions {
  readonly server?: string;
  readonly signal?: AbortSignal;
  /** Milliseconds; defaults to the server's call timeout. */
  readonly timeout?: number;
}

/** Options of a request made through `SessionClients.request`: the caller's timeout, else the server's. */
export function sessionRequestOptions(
  host: SurfaceHost,
  connection: ServerConnection,
  options: RequestOptions,
) {
  return {
    timeoutMs: options.timeout ?? host.timeoutMs(connection),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** The same as the SDK client's own request options (`timeout`, `signal`). */
export function clientRequestOptions(
  host: SurfaceHost,
  connection: ServerConnection,
  options: RequestOptions,
) {
  return {
    timeout: options.timeout ?? host.timeoutMs(connection),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** The named server's connection, or a typed error saying there is none. */
export function requireConnection(host: SurfaceHost, server: string): ServerConnection {
  const connection = host.connection(server);
  if (connection) return connection;
  throw new ServerConnectionError(
    ErrorCode.ServerNotFound,
    errorMessages.serverNotFound(
      server,
      host.connections().map((c) => c.name),
    ),
    { server },
  );
}

/** Connected servers with their live client, for listings that should not start idle servers. */
export function liveClients(host: SurfaceHost): { connection: ServerConnection; client: Client }[] {
  const live: { connection: ServerConnection; client: Client }[] = [];
  for (const connection of host.connections()) {
    const client = host.sessions.current(connection);
    if (client) live.push({ connection, client });
  }
  return live;
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
    items.push(...(Array.isArray(result.items) ? result.items : []));
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

/** The listings of the resource and prompt surfaces, by what they list. */
interface Listed {
  readonly prompts: Prompt;
  readonly resources: Resource;
  readonly resourceTemplates: ResourceTemplateType;
}
type PageOf<K extends keyof Listed> = { items: readonly Listed[K][]; nextCursor?: string | undefined };
type PageParams = { cursor: string } | undefined;
type PageRequest = { timeout?: number; signal?: AbortSignal };

const LISTINGS: {
  readonly [K in keyof Listed]: {
    readonly method: string;
    readonly page: (client: Client, params: PageParams, options: PageRequest) => Promise<PageOf<K>>;
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
  host: SurfaceHost,
  connection: ServerConnection,
  client: Client,
  options: PageRequest,
): Promise<Listed[K][]> {
  const listing = LISTINGS[kind];
  return listAllPages<Listed[K]>(connection.name, listing.method, host.logger, (cursor) =>
    listing.page(client, cursor === undefined ? undefined : { cursor }, options),
  );
}

/** A listing of one server cached per live client; a `list_changed` notification drops it. */
export class PerClientCache<T> {
  readonly #cache = new WeakMap<Client, Promise<T>>();

  get(client: Client, load: () => Promise<T>): Promise<T> {
    let cached = this.#cache.get(client);
    if (!cached) {
      cached = load();
      this.#cache.set(client, cached);
      // A failed listing is not cached: the next caller tries again.
      cached.catch(() => {
        if (this.#cache.get(client) === cached) this.#cache.delete(client);
      });
    }
    return cached;
  }

  invalidate(client: Client): void {
    this.#cache.delete(client);
  }
}

export function closedError(): McpBridgeError {
  return new McpBridgeError(ErrorCode.BridgeClosed, errorMessages.bridgeClosed());
}
