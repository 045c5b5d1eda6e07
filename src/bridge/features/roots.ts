import { dirname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client, Root } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../../config/model.js";
import { errorText } from "../../util/text-of.js";
import { assertOpen, type FeatureContext } from "./feature-context.js";
import type { SessionClients } from "./session-clients.js";

/** A configured root (a folder path, relative to `base`, or a file: URI) as an MCP Root. */
export function toRoot(entry: string, base: string): Root {
  if (/^file:/i.test(entry)) {
    const name = decodeURIComponent(entry.replace(/\/+$/, "").split("/").pop() ?? entry);
    return { uri: entry, name };
  }
  const path = isAbsolute(entry) ? entry : resolve(base, entry);
  const uri = pathToFileURL(path).href;
  return { uri, name: path.split(/[\\/]/).filter(Boolean).pop() ?? path };
}

/**
 * The roots shown to servers: set through `setRoots` (for all servers or one), else configured.
 * Every client declares roots (with list_changed) before it connects, even with none configured: a
 * capability is fixed at the handshake, and `setRoots` must reach sessions already open.
 */
export class ServerRoots {
  readonly #context: FeatureContext;
  readonly #sessions: SessionClients;
  /** Roots set through `setRoots`: for all servers (key "") or one server. */
  readonly #overrides = new Map<string, readonly Root[]>();

  constructor(context: FeatureContext, sessions: SessionClients) {
    this.#context = context;
    this.#sessions = sessions;
  }

  /** Answers `roots/list` from the roots current at each request, so `setRoots` needs only a notification. */
  register(client: Client, definition: ServerDefinition): void {
    client.registerCapabilities({ roots: { listChanged: true } });
    client.setRequestHandler("roots/list", () => ({ roots: [...this.rootsFor(definition)] }));
  }

  /**
   * The server's roots: set by `setRoots`, else configured (server, then global), else none. Never a
   * default folder: server-filesystem replaces the folders in its `args` with any roots it is given, so
   * a config copied from another host (which declares none) would lose them, and the config's own folder
   * holds the OAuth tokens and the trust store.
   */
  rootsFor(definition: ServerDefinition): readonly Root[] {
    const override = this.#overrides.get(definition.name) ?? this.#overrides.get("");
    if (override) return override;
    const configured = definition.roots ?? this.#context.config.settings.roots;
    return configured ? configured.map((entry) => toRoot(entry, this.#base())) : [];
  }

  /** Replaces the roots (of one server or all) and tells the connected servers the list changed. */
  async setRoots(roots: readonly (string | Root)[], options: { server?: string } = {}): Promise<void> {
    assertOpen(this.#context);
    const base = this.#base();
    const normalized = roots.map((root) => (typeof root === "string" ? toRoot(root, base) : root));
    this.#overrides.set(options.server ?? "", normalized);
    if (options.server === undefined) {
      for (const key of [...this.#overrides.keys()]) if (key !== "") this.#overrides.delete(key);
    }
    const targets = [...this.#context.servers.connections().values()].filter(
      (connection) => options.server === undefined || connection.name === options.server,
    );
    await Promise.all(
      targets.map(async (connection) => {
        const client = this.#sessions.current(connection);
        await client?.sendRootsListChanged().catch((error: unknown) =>
          this.#context.logger.warn(`Telling server "${connection.name}" that the roots changed failed`, {
            server: connection.name,
            error: errorText(error),
          }),
        );
      }),
    );
  }

  /** Relative roots are relative to the config file's folder (the working folder without a file). */
  #base(): string {
    const file = this.#context.config.file;
    return file ? dirname(file) : process.cwd();
  }
}
