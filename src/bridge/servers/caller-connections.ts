import { type AuthHandle, createAuthHandle } from "../../auth/oauth-client.js";
import type { AuthorizationStep } from "../../auth/redirect.js";
import type { RemoteServerDefinition } from "../../config/model.js";
import { createConnection, type ServerConnection } from "../../connection/connection.js";
import { bridgeClosed } from "../../errors/index.js";
import type { Logger } from "../../util/logger.js";
import { SecretMask } from "../../util/redact.js";
import { noteTokens } from "./server-record.js";

export interface CallerConnectionOptions {
  readonly logger: Logger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Where the callers' tokens are kept (default: the OAuth token folder). */
  readonly storageDir?: string;
  readonly redact?: (text: string) => string;
  /** How long a connect of a caller without tokens may wait for the caller's consent. */
  readonly consentTimeoutMs: number;
}

/** One caller's connection to one server, with the authorization step its logins go through. */
interface CallerConnection<S extends AuthorizationStep> {
  /** What the connection was made for: a reload that changes it replaces the connection. */
  readonly fingerprint: string;
  readonly connection: ServerConnection;
  readonly auth: AuthHandle | undefined;
  readonly step: S;
}

/**
 * Connections of many callers to remote servers, one per caller and server, each with the caller's own
 * tokens (AuthStore keyed by the caller): the gateway's per-caller mode (`oauth.perCaller`). A caller
 * without tokens is asked through `step`, which the gateway gives: its consent, then the login's
 * callback. No connection, token or login step is ever shared between two callers.
 */
export class CallerConnections<S extends AuthorizationStep> {
  readonly #entries = new Map<string, Promise<CallerConnection<S>>>();
  /** The callers' access tokens, noted as they are presented: masked in every error and log line. */
  readonly #secrets = new SecretMask();
  #closed = false;

  constructor(
    private readonly options: CallerConnectionOptions,
    /** The login step of one caller's connection to one server. */
    private readonly stepFor: (caller: string, server: string) => S,
  ) {}

  /** The connection of `caller` to the server of `definition`, made on first use. */
  async connection(caller: string, definition: RemoteServerDefinition): Promise<CallerConnection<S>> {
    const key = JSON.stringify([caller, definition.name]);
    const fingerprint = JSON.stringify([definition.url, definition.oauth, definition.headers]);
    const current = this.#entries.get(key);
    const known = current && (await current.catch(() => undefined));
    if (known?.fingerprint === fingerprint) return known;
    // A reload changed the server (or the last attempt failed): a new connection replaces the old one.
    if (known) void known.connection.close().catch(() => {});
    const made = this.#open(caller, definition, fingerprint);
    this.#entries.set(key, made);
    made.catch(() => {
      if (this.#entries.get(key) === made) this.#entries.delete(key);
    });
    return made;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(
      entries.map(async (made) => {
        const entry = await made.catch(() => undefined);
        await entry?.connection.close().catch(() => {});
        await entry?.auth?.close().catch(() => {});
      }),
    );
  }

  async #open(
    caller: string,
    definition: RemoteServerDefinition,
    fingerprint: string,
  ): Promise<CallerConnection<S>> {
    if (this.#closed) throw bridgeClosed();
    const step = this.stepFor(caller, definition.name);
    const auth = await createAuthHandle(definition, {
      caller,
      step,
      ...(this.options.storageDir ? { storageDir: this.options.storageDir } : {}),
    });
    // On demand only, never restarted in the background: a reconnect of a caller who is not calling
    // would ask for a consent nobody waits for. The connect may wait for a person.
    const own: RemoteServerDefinition = {
      ...definition,
      lazy: true,
      restart: { ...definition.restart, enabled: false },
      healthCheckIntervalMs: 0,
      startupTimeoutMs: Math.max(definition.startupTimeoutMs, this.options.consentTimeoutMs),
    };
    const redact = this.options.redact;
    const connection = createConnection(own, {
      logger: this.#secrets.logger(this.options.logger),
      clientInfo: this.options.clientInfo,
      redact: (text) => this.#secrets.text(redact ? redact(text) : text),
      auth,
      ...(auth?.fetch ? { fetch: noteTokens(auth.fetch, this.#secrets) } : {}),
    });
    return { fingerprint, connection, auth, step };
  }
}
