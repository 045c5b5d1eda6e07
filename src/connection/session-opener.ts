import type { Client } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";
import type { McpBridgeError } from "../errors/index.js";
import { peerAttributes } from "../telemetry/semconv.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import { traceTransport } from "../telemetry/traced-transport.js";
import { createTransport, type TransportContext, type TransportFactory } from "../transport/create.js";
import type { ExitInfo } from "../transport/stdio.js";
import * as fail from "./failures.js";
import {
  boundedBy,
  listTools,
  newSessionClient,
  type OpenedSession,
  openSession,
  type ToolListing,
} from "./open-session.js";
import type { ConnectionOptions } from "./server-connection.js";
import type { ServerOutput } from "./server-output.js";

/** What the opener needs of its connection. */
export interface OpenerHost {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly options: ConnectionOptions;
  readonly output: ServerOutput;
  /** Aborted by the connection's close(): ends any start or listing still waiting. */
  readonly stop: AbortSignal;
  /** Whether this client is the live session's (a list_changed of a retired one is ignored). */
  isCurrent(client: Client): boolean;
  setTools(listing: ToolListing): void;
  authorizationFailed(error: McpBridgeError): void;
  startError(error: unknown, exit: ExitInfo | undefined, timeoutMs: number): McpBridgeError;
  /** The negotiation of the next session: the definition's, unless the server proved it needs `legacy`. */
  negotiation(): ServerDefinition["negotiation"];
}

/**
 * Binds open-session.ts to one connection's options: the transport factory and context, the SDK
 * client each attempt gets (with the connection's client-side handlers), and re-listing the tools on
 * list_changed under the same bounds as the first listing.
 */
export class SessionOpener {
  readonly #host: OpenerHost;

  constructor(host: OpenerHost) {
    this.#host = host;
  }

  open(): Promise<OpenedSession> {
    const host = this.#host;
    const options = host.options;
    return openSession({
      name: host.name,
      definition: host.definition,
      logger: options.logger,
      createTransport: traced(options.createTransport ?? createTransport, options.telemetry, options.redact),
      transportContext: transportContext(options, host.output),
      newClient: () => this.#newClient(),
      bounded: (deadline, work) => this.#bounded(deadline, work),
      startError: (error, exit, timeoutMs) => host.startError(error, exit, timeoutMs),
      authorizationResult: async () =>
        options.auth?.authorizationResult().catch((error: unknown) => {
          host.authorizationFailed(fail.authorizationFailed(host.name, error, options.redact));
          return undefined;
        }),
    });
  }

  #newClient(): Client {
    const host = this.#host;
    const client = newSessionClient({
      clientInfo: host.options.clientInfo,
      negotiation: host.negotiation(),
      onToolsChanged: () => this.#relist(client),
    });
    client.onListenFailed = (error) =>
      host.options.logger.warn(
        `Server "${host.name}" did not open a list-changes stream; changes to its tools, prompts and resources will not be noticed until it reconnects`,
        { server: host.name, error: fail.describeError(error, host.options.redact) },
      );
    host.options.configureClient?.(client);
    return client;
  }

  /**
   * Lists the tools again, bounded like the first listing, and puts the list in place if the client is
   * still the live session's. Run on list_changed and on demand (`refreshTools`).
   */
  async relist(client: Client): Promise<void> {
    const host = this.#host;
    const timeoutMs = host.definition.startupTimeoutMs;
    const deps = { name: host.name, logger: host.options.logger };
    const listing = await this.#bounded(Date.now() + timeoutMs, () => listTools(client, deps, timeoutMs));
    if (host.isCurrent(client)) host.setTools(listing);
  }

  /** A list_changed notification: list again; a failure is only a warning (the old list stays). */
  #relist(client: Client): void {
    const host = this.#host;
    if (!host.isCurrent(client)) return;
    this.relist(client).catch((error: unknown) =>
      host.options.logger.warn(`Server "${host.name}" announced new tools, but listing them failed`, {
        server: host.name,
        error: fail.describeError(error, host.options.redact),
      }),
    );
  }

  #bounded<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    const name = this.#host.name;
    return boundedBy(deadline, this.#host.stop, () => fail.closedWhileStarting(name), work);
  }
}

/** The factory, with each transport it makes traced when telemetry is on (the factory itself when off). */
function traced(
  factory: TransportFactory,
  telemetry: Telemetry | undefined,
  redact: (text: string) => string,
): TransportFactory {
  if (telemetry === undefined) return factory;
  return (definition, attempt, context) => {
    const created = factory(definition, attempt, context);
    return {
      ...created,
      transport: traceTransport(created.transport, telemetry, peerAttributes(definition), redact),
    };
  };
}

function transportContext(options: ConnectionOptions, output: ServerOutput): TransportContext {
  return {
    hostEnv: options.hostEnv,
    authProvider: options.auth?.provider,
    fetch: options.fetch,
    stringCapBytes: options.stringCapBytes,
    onStderrLine: output.onStderrLine,
    onNoise: output.onNoise,
  };
}
