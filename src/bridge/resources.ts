import {
  type Client,
  type Icon,
  type McpSubscription,
  type Resource,
  type ResourceTemplateType,
  UriTemplate,
} from "@modelcontextprotocol/client";
import type { ServerConnection } from "../connection/connection.js";
import { followListChanges } from "../connection/list-changed.js";
import { ErrorCode, errorMessages, ServerRequestError } from "../errors/index.js";
import { type ResourceContent, toResourceContent } from "../results/resource.js";
import { errorText, textOf } from "../util/text-of.js";
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

/** One resource a server lists, with the server that serves it. */
export interface ResourceEntry {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly icons?: readonly Icon[];
}

export interface ResourceTemplateEntry {
  readonly server: string;
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly icons?: readonly Icon[];
}

export interface ReadResourceOptions extends RequestOptions {
  /** Decode blobs into bytes (default: size and MIME type only). */
  readonly binary?: boolean;
  /** Overrides the server's / global max result characters for this read. */
  readonly maxResultChars?: number;
}

export interface ResourceUpdate {
  readonly server: string;
  readonly uri: string;
}

type Listener = (update: ResourceUpdate) => void;

/**
 * Resources and resource templates of every server: listings cached per session and dropped on
 * `notifications/resources/list_changed`, reads routed to the one server that serves a URI, and
 * subscriptions kept across reconnects.
 */
export class ResourceCatalog {
  readonly #host: SurfaceHost;
  readonly #resources = new PerClientCache<ResourceEntry[]>();
  readonly #templates = new PerClientCache<ResourceTemplateEntry[]>();
  /** server -> uri -> listeners */
  readonly #subscriptions = new Map<string, Map<string, Set<Listener>>>();
  /** 2026-07-28 sessions: the open `subscriptions/listen` stream of each subscribed `server\0uri`. */
  readonly #listens = new Map<string, McpSubscription>();

  constructor(host: SurfaceHost) {
    this.#host = host;
  }

  /** Registers the notification handlers on a new client of `server` (before it connects). */
  configureClient(server: string, client: Client, onListChanged: () => void): void {
    followListChanges(client, "resources", () => {
      this.#resources.invalidate(client);
      this.#templates.invalidate(client);
      onListChanged();
    });
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      const uri = textOf(notification.params?.uri ?? "");
      for (const listener of [...(this.#subscriptions.get(server)?.get(uri) ?? [])]) {
        try {
          listener({ server, uri });
        } catch (error) {
          this.#host.logger.error("A resource subscription listener threw", {
            server,
            error: errorText(error),
          });
        }
      }
    });
  }

  async list(options: RequestOptions = {}): Promise<ResourceEntry[]> {
    this.#host.assertOpen();
    if (options.server !== undefined) {
      const connection = requireConnection(this.#host, options.server);
      return this.#host.sessions.request(
        connection,
        { method: "resources/list" },
        sessionRequestOptions(this.#host, connection, options),
        (client, requestOptions) => this.#listOf(connection, client, requestOptions),
      );
    }
    const lists = await Promise.all(
      liveClients(this.#host).map(({ connection, client }) =>
        this.#listOf(connection, client, clientRequestOptions(this.#host, connection, options)).catch(
          (error: unknown) => {
            this.#host.logger.warn(`Listing the resources of server "${connection.name}" failed`, {
              server: connection.name,
              error: errorText(error),
            });
            return [] as ResourceEntry[];
          },
        ),
      ),
    );
    return lists.flat();
  }

  async templates(options: RequestOptions = {}): Promise<ResourceTemplateEntry[]> {
    this.#host.assertOpen();
    if (options.server !== undefined) {
      const connection = requireConnection(this.#host, options.server);
      return this.#host.sessions.request(
        connection,
        { method: "resources/templates/list" },
        sessionRequestOptions(this.#host, connection, options),
        (client, requestOptions) => this.#templatesOf(connection, client, requestOptions),
      );
    }
    const lists = await Promise.all(
      liveClients(this.#host).map(({ connection, client }) =>
        this.#templatesOf(connection, client, clientRequestOptions(this.#host, connection, options)).catch(
          () => [] as ResourceTemplateEntry[],
        ),
      ),
    );
    return lists.flat();
  }

  async read(uri: string, options: ReadResourceOptions = {}): Promise<ResourceContent> {
    this.#host.assertOpen();
    const connection = await this.#serverFor(uri, options);
    const result = await this.#host.sessions.request(
      connection,
      { method: "resources/read", item: uri },
      sessionRequestOptions(this.#host, connection, options),
      (client, requestOptions) => client.readResource({ uri }, requestOptions),
    );
    const content = toResourceContent(connection.name, uri, result, {
      maxResultChars: options.maxResultChars ?? this.#host.maxResultChars(connection),
      ...(options.binary ? { binary: true } : {}),
    });
    return keepUpstream(content, result);
  }

  /**
   * Calls `listener` on every `notifications/resources/updated` for the URI. Resolves once the server
   * acknowledged the subscription; the returned function unsubscribes.
   */
  async subscribe(
    uri: string,
    listener: Listener,
    options: RequestOptions = {},
  ): Promise<() => Promise<void>> {
    this.#host.assertOpen();
    const connection = await this.#serverFor(uri, options);
    const byUri = this.#subscriptions.get(connection.name) ?? new Map<string, Set<Listener>>();
    this.#subscriptions.set(connection.name, byUri);
    const listeners = byUri.get(uri) ?? new Set<Listener>();
    const first = listeners.size === 0;
    listeners.add(listener);
    byUri.set(uri, listeners);
    if (first) {
      try {
        await this.#host.sessions.request(
          connection,
          { method: "resources/subscribe", item: uri },
          sessionRequestOptions(this.#host, connection, options),
          (client, requestOptions) => this.#sendSubscribe(connection.name, client, uri, requestOptions),
        );
      } catch (error) {
        listeners.delete(listener);
        if (listeners.size === 0) byUri.delete(uri);
        throw error;
      }
    }
    return async () => {
      if (!listeners.delete(listener) || listeners.size > 0) return;
      byUri.delete(uri);
      const listen = this.#listens.get(`${connection.name}\0${uri}`);
      this.#listens.delete(`${connection.name}\0${uri}`);
      if (listen) {
        await listen.close();
        return;
      }
      const client = this.#host.sessions.current(connection);
      if (client?.getServerCapabilities()?.resources?.subscribe) {
        await client
          .unsubscribeResource({ uri }, { timeout: this.#host.timeoutMs(connection) })
          .catch(() => {});
      }
    };
  }

  /** After a (re)connect: the new session knows none of our subscriptions, so send them again. */
  resubscribe(connection: ServerConnection): void {
    const client = this.#host.sessions.current(connection);
    const uris = [...(this.#subscriptions.get(connection.name)?.keys() ?? [])];
    if (!client || uris.length === 0) return;
    for (const uri of uris) {
      this.#sendSubscribe(connection.name, client, uri, { timeout: this.#host.timeoutMs(connection) }).catch(
        (error: unknown) =>
          this.#host.logger.warn(`Server "${connection.name}": re-subscribing to ${uri} failed`, {
            server: connection.name,
            error: errorText(error),
          }),
      );
    }
  }

  async #sendSubscribe(
    server: string,
    client: Client,
    uri: string,
    requestOptions: { timeout?: number },
  ): Promise<void> {
    // A server without subscribe support still sends list_changed; the listener then never fires,
    // which is the truth, so subscribing is not an error.
    if (!client.getServerCapabilities()?.resources?.subscribe) return;
    if (client.getProtocolEra() !== "modern") {
      await client.subscribeResource({ uri }, requestOptions);
      return;
    }
    // 2026-07-28: `subscriptions/listen` replaces resources/subscribe; its updates reach the same
    // notification handler. One stream per URI, so unsubscribing one leaves the others open.
    const key = `${server}\0${uri}`;
    await this.#listens.get(key)?.close();
    this.#listens.set(key, await client.listen({ resourceSubscriptions: [uri] }, requestOptions));
  }

  /** The server that serves `uri`: the one named, else the only one listing it or a matching template. */
  async #serverFor(uri: string, options: RequestOptions): Promise<ServerConnection> {
    if (options.server !== undefined) return requireConnection(this.#host, options.server);
    const live = liveClients(this.#host);
    const listed = await Promise.all(
      live.map(async ({ connection, client }) => {
        const resources = await this.#listOf(
          connection,
          client,
          clientRequestOptions(this.#host, connection, options),
        ).catch(() => [] as ResourceEntry[]);
        return resources.some((resource) => resource.uri === uri) ? connection : undefined;
      }),
    );
    let owners = listed.filter((connection) => connection !== undefined);
    if (owners.length === 0) {
      const templated = await Promise.all(
        live.map(async ({ connection, client }) => {
          const templates = await this.#templatesOf(
            connection,
            client,
            clientRequestOptions(this.#host, connection, options),
          ).catch(() => [] as ResourceTemplateEntry[]);
          return templates.some((template) => templateMatches(template.uriTemplate, uri))
            ? connection
            : undefined;
        }),
      );
      owners = templated.filter((connection) => connection !== undefined);
    }
    if (owners.length === 1 && owners[0]) return owners[0];
    if (owners.length > 1) {
      throw new ServerRequestError(
        ErrorCode.ResourceAmbiguous,
        errorMessages.resourceAmbiguous(
          uri,
          owners.map((connection) => connection.name),
        ),
        { method: "resources/read", item: uri, ...(owners[0] ? { server: owners[0].name } : {}) },
      );
    }
    throw new ServerRequestError(
      ErrorCode.ResourceNotFound,
      errorMessages.resourceNotFound(
        uri,
        live.map(({ connection }) => connection.name),
      ),
      { method: "resources/read", item: uri },
    );
  }

  #listOf(
    connection: ServerConnection,
    client: Client,
    requestOptions: { timeout?: number; signal?: AbortSignal },
  ): Promise<ResourceEntry[]> {
    return this.#resources.get(client, async () => {
      if (!client.getServerCapabilities()?.resources) return [];
      const resources = await listEvery("resources", this.#host, connection, client, requestOptions);
      return resources.filter(isNamedWith("uri")).map((resource) => resourceEntry(connection.name, resource));
    });
  }

  #templatesOf(
    connection: ServerConnection,
    client: Client,
    requestOptions: { timeout?: number; signal?: AbortSignal },
  ): Promise<ResourceTemplateEntry[]> {
    return this.#templates.get(client, async () => {
      if (!client.getServerCapabilities()?.resources) return [];
      const templates = await listEvery("resourceTemplates", this.#host, connection, client, requestOptions);
      return templates
        .filter(isNamedWith("uriTemplate"))
        .map((template) => templateEntry(connection.name, template));
    });
  }
}

function isNamedWith(key: "uri" | "uriTemplate") {
  return (value: unknown): boolean => {
    const record = value as Record<string, unknown> | null;
    return !!record && typeof record[key] === "string" && typeof record.name === "string";
  };
}

/** Does `uri` match the RFC 6570 template? A template the SDK cannot parse matches nothing. */
export function templateMatches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

function resourceEntry(server: string, resource: Resource): ResourceEntry {
  return keepUpstream(
    {
      server,
      uri: resource.uri,
      name: resource.name,
      ...(typeof resource.title === "string" ? { title: resource.title } : {}),
      ...(typeof resource.description === "string" ? { description: resource.description } : {}),
      ...(typeof resource.mimeType === "string" ? { mimeType: resource.mimeType } : {}),
      ...(typeof resource.size === "number" ? { size: resource.size } : {}),
      ...(Array.isArray(resource.icons) ? { icons: resource.icons } : {}),
    },
    resource,
  );
}

function templateEntry(server: string, template: ResourceTemplateType): ResourceTemplateEntry {
  return keepUpstream(
    {
      server,
      uriTemplate: template.uriTemplate,
      name: template.name,
      ...(typeof template.title === "string" ? { title: template.title } : {}),
      ...(typeof template.description === "string" ? { description: template.description } : {}),
      ...(typeof template.mimeType === "string" ? { mimeType: template.mimeType } : {}),
      ...(Array.isArray(template.icons) ? { icons: template.icons } : {}),
    },
    template,
  );
}
