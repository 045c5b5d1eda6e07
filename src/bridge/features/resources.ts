import { createHash } from "node:crypto";
import {
  type Client,
  type Icon,
  type McpSubscription,
  type Resource,
  type ResourceTemplateType,
  type RequestOptions as SdkRequestOptions,
  UriTemplate,
} from "@modelcontextprotocol/client";
import type { ServerConnection } from "../../connection/connection.js";
import { followListChanges } from "../../connection/list-changed.js";
import { resourceAmbiguous, resourceNotFound } from "../../errors/index.js";
import { type ResourceContent, toResourceContent } from "../../results/resource.js";
import { definedOnly } from "../../util/defined.js";
import { errorText, textOf } from "../../util/text-of.js";
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
  readonly #context: FeatureContext;
  readonly #sessions: SessionClients;
  readonly #resources: ServerListing<ResourceEntry>;
  readonly #templates: ServerListing<ResourceTemplateEntry>;
  /** server -> uri -> listeners */
  readonly #subscriptions = new Map<string, Map<string, Set<Listener>>>();
  /** 2026-07-28 sessions: the open `subscriptions/listen` stream of each subscribed `server\0uri`. */
  readonly #listens = new Map<string, McpSubscription>();
  /** Sessions whose `resources/updated` notifications reach the listeners (set on first subscribe). */
  readonly #followed = new WeakSet<Client>();

  constructor(context: FeatureContext, sessions: SessionClients) {
    this.#context = context;
    this.#sessions = sessions;
    this.#resources = new ServerListing(context, sessions, {
      method: "resources/list",
      warnAs: "resources",
      capability: "resources",
      load: async (connection, client, options) => {
        if (!client.getServerCapabilities()?.resources) return [];
        const resources = await listEvery("resources", context.logger, connection, client, options);
        return resources
          .filter(isNamedWith("uri"))
          .map((resource) => resourceEntry(connection.name, resource));
      },
    });
    this.#templates = new ServerListing(context, sessions, {
      method: "resources/templates/list",
      capability: "resources",
      // A server may list resources without templates: its failing template listing is no news.
      warnAs: undefined,
      pinAs: "resourceTemplate",
      load: async (connection, client, options) => {
        if (!client.getServerCapabilities()?.resources) return [];
        const templates = await listEvery("resourceTemplates", context.logger, connection, client, options);
        return templates
          .filter(isNamedWith("uriTemplate"))
          .map((template) => templateEntry(connection.name, template));
      },
    });
  }

  /**
   * What a new client of `server` needs before it connects: its `list_changed` drops the cached
   * listings and tells the host. (`resources/updated` is followed only once something is subscribed.)
   */
  register(client: Client, server: string): void {
    followListChanges(client, "resources", () => {
      this.#resources.invalidate(client);
      this.#templates.invalidate(client);
      this.#context.events.emit("resourcesChanged", { server });
    });
  }

  list(options: RequestOptions = {}): Promise<ResourceEntry[]> {
    return this.#resources.list(options);
  }

  templates(options: RequestOptions = {}): Promise<ResourceTemplateEntry[]> {
    return this.#templates.list(options);
  }

  async read(uri: string, options: ReadResourceOptions = {}): Promise<ResourceContent> {
    assertOpen(this.#context);
    const connection = await this.#serverFor(uri, options);
    const result = await this.#sessions.request(
      connection,
      { method: "resources/read", item: uri },
      sessionRequestOptions(connection, options),
      (client, requestOptions) => client.readResource({ uri }, requestOptions),
    );
    // An MCP App's UI is code the host renders: its content is pinned like a tool's definition.
    if (uri.startsWith("ui://")) {
      const digest = createHash("sha256")
        .update(JSON.stringify(result.contents ?? []))
        .digest("hex");
      const setting = this.#context.config.settings.onDrift;
      this.#context.pins.check(
        connection.definition,
        "uiResource",
        [{ name: uri, content: digest }],
        setting,
      );
    }
    const content = toResourceContent(connection.name, uri, result, {
      maxResultChars: options.maxResultChars ?? maxResultCharsOf(this.#context, connection),
      binary: options.binary === true,
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
    assertOpen(this.#context);
    const connection = await this.#serverFor(uri, options);
    const byUri = this.#subscriptions.get(connection.name) ?? new Map<string, Set<Listener>>();
    this.#subscriptions.set(connection.name, byUri);
    const listeners = byUri.get(uri) ?? new Set<Listener>();
    const first = listeners.size === 0;
    listeners.add(listener);
    byUri.set(uri, listeners);
    if (first) {
      try {
        await this.#sessions.request(
          connection,
          { method: "resources/subscribe", item: uri },
          sessionRequestOptions(connection, options),
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
      const client = this.#sessions.current(connection);
      if (client?.getServerCapabilities()?.resources?.subscribe) {
        await client
          .unsubscribeResource({ uri }, { timeout: connection.definition.callTimeoutMs })
          .catch(() => {});
      }
    };
  }

  /** After a (re)connect: the new session knows none of our subscriptions, so send them again. */
  resubscribe(connection: ServerConnection): void {
    const client = this.#sessions.current(connection);
    const uris = [...(this.#subscriptions.get(connection.name)?.keys() ?? [])];
    if (!client || uris.length === 0) return;
    for (const uri of uris) {
      this.#sendSubscribe(connection.name, client, uri, {
        timeout: connection.definition.callTimeoutMs,
      }).catch((error: unknown) =>
        this.#context.logger.warn(`Server "${connection.name}": re-subscribing to ${uri} failed`, {
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
    requestOptions: SdkRequestOptions,
  ): Promise<void> {
    this.#followUpdates(server, client);
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

  /** Sends each `resources/updated` of this session to the URI's listeners. */
  #followUpdates(server: string, client: Client): void {
    if (this.#followed.has(client)) return;
    this.#followed.add(client);
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      const uri = textOf(notification.params?.uri ?? "");
      for (const listener of [...(this.#subscriptions.get(server)?.get(uri) ?? [])]) {
        try {
          listener({ server, uri });
        } catch (error) {
          this.#context.logger.error("A resource subscription listener threw", {
            server,
            error: errorText(error),
          });
        }
      }
    });
  }

  /** The server that serves `uri`: the one named, else the only one listing it or a matching template. */
  async #serverFor(uri: string, options: RequestOptions): Promise<ServerConnection> {
    if (options.server !== undefined) return requireConnection(this.#context, options.server);
    // Quiet: a server that cannot list is simply not a candidate.
    const every = { signal: options.signal, timeout: options.timeout };
    const listed = await this.#resources.byServer(every, true);
    let owners = listed
      .filter((part) => part.items.some((resource) => resource.uri === uri))
      .map((part) => part.connection);
    if (owners.length === 0) {
      const templated = await this.#templates.byServer(every, true);
      owners = templated
        .filter((part) => part.items.some((template) => templateMatches(template.uriTemplate, uri)))
        .map((part) => part.connection);
    }
    const [owner] = owners;
    if (owners.length === 1 && owner) return owner;
    if (owner) throw resourceAmbiguous({ uri, servers: owners.map((connection) => connection.name) });
    throw resourceNotFound({ uri, searched: listed.map((part) => part.connection.name) });
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

/** A listed resource as the host sees it: the fields of the right type, absent ones left out. */
function resourceEntry(server: string, resource: Resource): ResourceEntry {
  const entry = definedOnly({
    server,
    uri: resource.uri,
    name: resource.name,
    title: stringOr(resource.title),
    description: stringOr(resource.description),
    mimeType: stringOr(resource.mimeType),
    size: typeof resource.size === "number" ? resource.size : undefined,
    icons: Array.isArray(resource.icons) ? resource.icons : undefined,
  }) as ResourceEntry;
  return keepUpstream(entry, resource);
}

function templateEntry(server: string, template: ResourceTemplateType): ResourceTemplateEntry {
  const entry = definedOnly({
    server,
    uriTemplate: template.uriTemplate,
    name: template.name,
    title: stringOr(template.title),
    description: stringOr(template.description),
    mimeType: stringOr(template.mimeType),
    icons: Array.isArray(template.icons) ? template.icons : undefined,
  }) as ResourceTemplateEntry;
  return keepUpstream(entry, template);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
