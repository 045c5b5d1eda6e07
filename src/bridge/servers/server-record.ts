import type { CallToolResult, Client, FetchLike } from "@modelcontextprotocol/client";
import { type AuthHandle, createAuthHandle, presentedToken } from "../../auth/oauth-client.js";
import { STRING_CAP } from "../../config/defaults.js";
import type { BridgeSettings, ServerDefinition } from "../../config/model.js";
import { secretsOf } from "../../config/secrets.js";
import {
  createConnection,
  type ServerConnection,
  type ToolCallOptions,
} from "../../connection/connection.js";
import { isSandboxed, type ServerStatus } from "../../connection/server-status.js";
import {
  authSetup,
  type McpBridgeError,
  type ServerConnectionError,
  serverUnavailable,
} from "../../errors/index.js";
import { omitUndefined } from "../../util/defined.js";
import { SERVER_START_FAILED } from "../../util/logger.js";
import type { SecretMask } from "../../util/redact.js";
import { errorText } from "../../util/text-of.js";
import { registerElicitationModes } from "../features/elicitation.js";
import type { ResolvedBridgeOptions } from "../options.js";

/**
 * One configured server as the bridge holds it: its connection and the auth handle that connection
 * uses, which live and die together. A server whose setup failed (a misconfigured `oauth` block) has
 * no connection and reports itself as failed, so one bad server never fails the whole bridge.
 */
export class ServerRecord {
  readonly name: string;
  /**
   * The current definition. Fields only the bridge reads (the tool filter) are updated in place on
   * reload; any other change replaces the record.
   */
  definition: ServerDefinition;
  readonly connection: ServerConnection | undefined;
  readonly #auth: AuthHandle | undefined;
  readonly #failure: McpBridgeError | undefined;
  readonly #redact: (text: string) => string;
  /** Set when `bridge.restart()` closed this record: its calls in flight were cut short by the restart. */
  restarted = false;
  #calls = 0;
  readonly #drainWaiters = new Set<() => void>();
  #closing: Promise<void> | undefined;

  private constructor(
    definition: ServerDefinition,
    parts: {
      connection?: ServerConnection;
      auth?: AuthHandle;
      failure?: McpBridgeError;
      redact: (text: string) => string;
    },
  ) {
    this.name = definition.name;
    this.definition = definition;
    this.connection = parts.connection;
    this.#auth = parts.auth;
    this.#failure = parts.failure;
    this.#redact = parts.redact;
  }

  /** Sets up auth and the (not yet started) connection. Never rejects: a setup failure is a failed record. */
  static async open(
    definition: ServerDefinition,
    settings: BridgeSettings,
    options: ResolvedBridgeOptions,
    /** The bridge's features, registered on each new SDK client of the server (before it connects). */
    clientSetup: (definition: ServerDefinition, client: Client) => void,
  ): Promise<ServerRecord> {
    const enabled = definition.enabled && settings.enabled;
    // One redaction for the whole bridge: a server's text may carry another server's secret too.
    options.secrets.add(secretsOf(definition));
    const redact = options.secrets.text;
    let auth: AuthHandle | undefined;
    if (enabled && (definition.transport === "http" || definition.transport === "sse")) {
      try {
        auth = await createAuthHandle(definition, options.auth);
      } catch (error) {
        const reason = redact(errorText(error));
        const failure = authSetup({ server: definition.name, reason, cause: error });
        options.logger.warn(failure.message, {
          server: definition.name,
          code: failure.code,
          event: SERVER_START_FAILED,
        });
        return new ServerRecord(definition, { failure, redact });
      }
    }
    const maxResultChars = definition.maxResultChars ?? settings.maxResultChars;
    const connection = createConnection(enabled ? definition : { ...definition, enabled: false }, {
      logger: options.logger,
      clientInfo: options.clientInfo,
      redact,
      hostEnv: options.env,
      auth,
      // Only over the auth handle's own fetch: replacing the transport's default would lose its pooling.
      fetch: auth?.fetch && noteTokens(auth.fetch, options.secrets),
      stringCapBytes: Math.max(STRING_CAP.minBytes, maxResultChars * STRING_CAP.bytesPerResultChar),
      telemetry: options.telemetry,
      clientSetup: (client) => {
        registerElicitationModes(client, {
          server: definition.name,
          handler: options.onElicitation,
          hostHandler: options.hostElicitation,
          logger: options.logger,
        });
        clientSetup(definition, client);
      },
    });
    return new ServerRecord(definition, { connection, auth, redact });
  }

  status(): ServerStatus {
    if (this.connection) return this.connection.status();
    const failure = this.#failure;
    // omitUndefined: the status is JSON output, where a server without a failure has no lastError.
    return omitUndefined({
      name: this.name,
      transport: this.definition.transport,
      sandboxed: isSandboxed(this.definition),
      state: this.#closing ? "closed" : "failed",
      toolCount: 0,
      restarts: 0,
      stderrTail: [],
      lastError: failure && { code: failure.code, message: this.#redact(failure.message) },
    });
  }

  /** Connects (unless lazy, disabled or failed); resolves once connected or failed, never rejects. */
  start(options: { deferSpawn?: boolean } = {}): Promise<void> {
    return this.connection?.start(options) ?? Promise.resolve();
  }

  /** Connects now (even when lazy); rejects with the start error (or the setup failure). */
  async connect(): Promise<void> {
    if (!this.connection) throw this.#failure ?? this.#unavailable(undefined);
    await this.connection.connect();
  }

  async ensureConnected(options: { signal?: AbortSignal; timeoutMs?: number }): Promise<void> {
    if (!this.connection) throw this.#unavailable(undefined);
    await this.connection.ensureConnected(options);
  }

  /** A call on this server; counted, so that a replaced record can let it finish before closing. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<CallToolResult> {
    if (!this.connection) throw this.#unavailable(tool);
    this.#calls++;
    try {
      return await this.connection.callTool(tool, args, options);
    } finally {
      this.#calls--;
      if (this.#calls === 0) for (const wake of [...this.#drainWaiters]) wake();
    }
  }

  /**
   * For a record a reload replaced or removed: closes once the calls in flight have ended (each is
   * bounded by its own timeout). `close()` meanwhile closes at once.
   */
  async retire(): Promise<void> {
    // Calls waiting for a connection that is not up were never sent: closing makes them fail with
    // BRIDGE_CLOSED, and the bridge sends them on the replacing connection.
    const connected = this.connection?.state === "connected";
    if (connected && this.#calls > 0 && !this.#closing) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.#drainWaiters.delete(done);
          resolve();
        };
        this.#drainWaiters.add(done);
      });
    }
    await this.close();
  }

  /** Closes the connection (its process is gone when this resolves), then the auth handle. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const wake of [...this.#drainWaiters]) wake();
      await this.connection?.close();
      await this.#auth?.close().catch(() => {});
    })();
    return this.#closing;
  }

  #unavailable(tool: string | undefined): ServerConnectionError {
    const reason = this.#failure ? this.#redact(this.#failure.message) : undefined;
    return serverUnavailable({ server: this.name, state: this.status().state, reason, tool });
  }
}

/**
 * The fetch of an authenticated server, adding each access token it sends (`Authorization: Bearer`
 * or `DPoP`) to the bridge's secrets, so a server that echoes its token back is masked like any
 * configured secret.
 */
export function noteTokens(inner: FetchLike, secrets: SecretMask): FetchLike {
  return (url, init) => {
    const token = presentedToken(init?.headers);
    if (token) secrets.add([token]);
    return inner(url, init);
  };
}

/** States in which a server may still bring tools that are not registered yet. */
export function stillConnecting(status: ServerStatus): boolean {
  return status.state === "connecting";
}
