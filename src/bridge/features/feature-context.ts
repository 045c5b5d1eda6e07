import type { ResolvedConfig } from "../../config/model.js";
import type { ServerConnection } from "../../connection/connection.js";
import { bridgeClosed, type McpBridgeError, serverNotFound } from "../../errors/index.js";
import type { TypedEmitter } from "../../util/events.js";
import type { Logger } from "../../util/logger.js";
import type { SecretMask } from "../../util/redact.js";
import type { BridgeEventMap, PinChecker } from "../api.js";
import type { SamplingHandler } from "./sampling.js";
import type { SessionRequestOptions } from "./session-clients.js";

/** The bridge's servers as the features read them: the current connection of each, in config order. */
export interface ServerSource {
  connections(): ReadonlyMap<string, ServerConnection>;
}

/**
 * What the MCP features read of the bridge: one live object the bridge builds once and keeps current
 * (the bridge's own state: a reload replaces `config`, `close()` sets `closing`). Read by property at the moment of use, so
 * a feature never holds a stale copy and never calls back into the bridge.
 */
export interface FeatureContext {
  readonly logger: Logger;
  readonly options: {
    /** The bridge's secrets, masked in server log messages and server error text. */
    readonly secrets: SecretMask;
    /** The host's sampling handler; without one, no server is told the bridge can sample. */
    readonly onSampling?: SamplingHandler | undefined;
  };
  /** The bridge's emitter: `resourcesChanged`, `promptsChanged`, `serverLog`. */
  readonly events: Pick<TypedEmitter<BridgeEventMap>, "emit">;
  readonly servers: ServerSource;
  readonly config: ResolvedConfig;
  /** The servers' pinned definitions: prompts, resource templates and `ui://` resources are checked too. */
  readonly pins: PinChecker;
  /** Set once the bridge began closing. */
  readonly closing: Promise<void> | undefined;
  /** The catalog cache: which servers not started yet declared a feature when their tools were listed. */
  readonly toolListCache: CatalogDeclarations;
  /** The guardrails' checks of prompts (set by the bridge; absent: none). */
  readonly promptGuard?: PromptGuard;
}

/** What the features ask the catalog cache. */
export interface CatalogDeclarations {
  /**
   * Whether the connection's server is listed from the catalog cache and not started (waiting for its
   * first use) and declared `capability` (`resources`, `prompts`) when its tools were listed.
   */
  declaresUnstarted(connection: ServerConnection, capability: string): boolean;
}

/** What the prompts feature asks of the guardrails (bridge/guardrails.ts). */
export interface PromptGuard {
  /** A server's prompt listing as it may be published: descriptions masked, prompts kept out. */
  listing<T extends { readonly name: string }>(server: string, items: readonly T[]): readonly T[];
  /** A prompt's messages as they may be shown; throws GUARDRAIL_BLOCKED when withheld. */
  result<T>(server: string, prompt: string, args: Record<string, unknown>, result: T): Promise<T>;
}

/** Per-request options shared by resources, prompts and completions. */
export interface RequestOptions {
  readonly server?: string;
  readonly signal?: AbortSignal;
  /** Milliseconds; defaults to the server's call timeout. */
  readonly timeout?: number;
}

/** Throws BRIDGE_CLOSED once the bridge is closing. */
export function assertOpen(context: FeatureContext): void {
  if (context.closing) throw closedError();
}

/** Options of a request made through `SessionClients.request`: the caller's timeout, else the server's. */
export function sessionRequestOptions(
  connection: ServerConnection,
  options: RequestOptions,
): SessionRequestOptions {
  return { timeoutMs: options.timeout ?? connection.definition.callTimeoutMs, signal: options.signal };
}

/** The result size limit of a server: its own, else the global one. */
export function maxResultCharsOf(context: FeatureContext, connection: ServerConnection): number {
  return connection.definition.maxResultChars ?? context.config.settings.maxResultChars;
}

/** The named server's connection, or a typed error saying there is none. */
export function requireConnection(context: FeatureContext, server: string): ServerConnection {
  const connections = context.servers.connections();
  const connection = connections.get(server);
  if (connection) return connection;
  throw serverNotFound({ server, configured: [...connections.keys()] });
}

/**
 * The connected servers, for listings that should not start idle servers; with `capability`, also the
 * servers waiting for their first use (lazy where the catalog cache answers) that declared it: a listing
 * of their resources or prompts is a use of them, which starts them.
 */
export function connectedServers(context: FeatureContext, capability?: string): ServerConnection[] {
  return [...context.servers.connections().values()].filter(
    (connection) =>
      connection.state === "connected" ||
      (capability !== undefined && context.toolListCache.declaresUnstarted(connection, capability)),
  );
}

/** BRIDGE_CLOSED (the runtime's call and reload paths throw it too). */
export function closedError(): McpBridgeError {
  return bridgeClosed();
}
