import type { IncomingMessage, ServerResponse } from "node:http";
import type { Bridge, CallUpstream } from "../../../bridge/api.js";
import { CallerConnections } from "../../../bridge/servers/caller-connections.js";
import type { RemoteServerDefinition } from "../../../config/model.js";
import type { Logger } from "../../../util/logger.js";
import { GATEWAY_DEFAULTS } from "../gateway-defaults.js";
import { type ConsentAsk, ConsentCallbacks, ConsentStep } from "./consent.js";

/** Where the authorization server sends a caller's browser back to (on the gateway's own listener). */
export const CONSENT_CALLBACK_PATH = "/oauth/callback";

export interface CallerUpstreamsOptions {
  readonly logger: Logger;
  readonly version: string;
  /** Where the callers' tokens are kept (default: the OAuth token folder). */
  readonly storageDir?: string;
  /** The gateway's public URL (any path): the callback is on its origin. */
  readonly gatewayUrl: () => string;
  /** How long a caller has to consent and sign in (default: as long as an upstream question waits). */
  readonly consentTimeoutMs?: number;
}

/**
 * The per-caller mode of remote servers behind the gateway (`"oauth": { "perCaller": true }`): each
 * authenticated client's calls to such a server go over a connection of its own, with tokens of its
 * own (stored under its identity). A client without tokens is asked, within the call, by a URL-mode
 * elicitation carrying the authorization URL; the authorization server sends the browser back to the
 * gateway's callback, and the call goes on. The gateway's own connection (its operator's login) only
 * lists the server's tools: a call never goes with it.
 */
export class CallerUpstreams {
  readonly #callbacks: ConsentCallbacks;
  readonly #connections: CallerConnections<ConsentStep>;
  readonly #consentTimeoutMs: number;

  constructor(
    private readonly bridge: Bridge,
    options: CallerUpstreamsOptions,
  ) {
    this.#consentTimeoutMs = options.consentTimeoutMs ?? GATEWAY_DEFAULTS.forwardTimeoutMs;
    this.#callbacks = new ConsentCallbacks(this.#consentTimeoutMs);
    this.#connections = new CallerConnections(
      {
        logger: options.logger,
        clientInfo: { name: "mcp-bridge", version: options.version },
        consentTimeoutMs: this.#consentTimeoutMs,
        ...(options.storageDir ? { storageDir: options.storageDir } : {}),
      },
      (_caller, server) =>
        new ConsentStep(server, new URL(CONSENT_CALLBACK_PATH, options.gatewayUrl()).href, this.#callbacks),
    );
  }

  /**
   * What a call of `caller` passes as the bridge's `upstream`: a per-caller server's tool goes over the
   * caller's own connection, asking `ask` (the call's client) for consent when it has no tokens yet.
   */
  upstream(caller: string, ask: ConsentAsk | undefined): CallUpstream {
    return (server, tool, args, options) => {
      const definition = this.#perCaller(server);
      if (!definition) return undefined;
      return (async () => {
        const { connection, step } = await this.#connections.connection(caller, definition);
        if (ask) step.askers.add(ask);
        try {
          await connection.ensureConnected({ signal: options.signal, timeoutMs: this.#consentTimeoutMs });
          return await connection.callTool(tool, args, options);
        } finally {
          if (ask) step.askers.delete(ask);
        }
      })();
    };
  }

  /** `GET /oauth/callback`: hands the login's code to the caller's waiting connect. */
  callback(req: IncomingMessage, res: ServerResponse): void {
    const query = new URL(req.url ?? "/", "http://gateway").searchParams;
    const known = this.#callbacks.arrived(query);
    res.writeHead(known ? 200 : 400, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    });
    res.end(
      known
        ? "<p>mcp-bridge: authorization complete. You can close this tab and return to your client.</p>"
        : "<p>mcp-bridge: this authorization is unknown or expired. Call the tool again to start a new one.</p>",
    );
  }

  async close(): Promise<void> {
    this.#callbacks.close();
    await this.#connections.close();
  }

  #perCaller(server: string): RemoteServerDefinition | undefined {
    const definition = this.bridge.config.servers.find((s) => s.name === server);
    if (!definition || (definition.transport !== "http" && definition.transport !== "sse")) return undefined;
    return definition.oauth?.perCaller === true ? definition : undefined;
  }
}
