import type {
  AuthProvider,
  CallToolResult,
  Client,
  FetchLike,
  OAuthClientProvider,
  Tool,
} from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";
import type { Telemetry } from "../telemetry/create-telemetry.js";
import type { TransportFactory } from "../transport/create.js";
import type { Logger } from "../util/logger.js";
import type { ServerState, ServerStatus } from "./server-status.js";
import type { ToolListing } from "./session.js";

export interface ConnectionOptions {
  readonly logger: Logger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Redacts secrets of this server out of free text (errors, stderr lines). */
  readonly redact: (text: string) => string;
  readonly hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Authentication to a remote server (see auth/): the SDK provider and the authorization step's result. */
  readonly auth?: {
    readonly provider: AuthProvider | OAuthClientProvider;
    authorizationResult(): Promise<URLSearchParams | undefined>;
  };
  readonly fetch?: FetchLike;
  /** Bytes kept of each string of an oversized stdio message (see transport/framing.ts). */
  readonly stringCapBytes?: number;
  /**
   * Registers the client-side features (elicitation, roots, sampling, ...) on every new SDK Client of
   * this server, before it connects; given once, when the connection is created.
   */
  readonly clientSetup?: (client: Client) => void;
  readonly random?: () => number;
  /** Makes the transport of each connect attempt; the real one by default, the SDK's InMemoryTransport in tests. */
  readonly createTransport?: TransportFactory;
  /** When set, every request of every session is traced and measured (see telemetry/traced-transport.ts). */
  readonly telemetry?: Telemetry;
}

export interface ToolCallOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  readonly resetTimeoutOnProgress?: boolean;
  /** Manual multi-round mode (2026-07-28): see `CallOptions.inputRound`. */
  readonly inputRound?: InputRound;
}

/**
 * One leg of a tool call whose `input_required` rounds the caller drives itself: the result may be an
 * `input_required` result (returned, not fulfilled through the client's handlers), and a retry carries
 * the answers and the server's `requestState` back. `{}` is a first leg.
 */
export interface InputRound {
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: string;
}

export interface ConnectionEvents {
  stateChanged: [status: ServerStatus];
  toolsChanged: [tools: readonly Tool[]];
}

/** One configured server: a live MCP session (or the way back to one), its tools and its health. */
export interface ServerConnection {
  readonly name: string;
  readonly definition: ServerDefinition;
  status(): ServerStatus;
  /** The state alone (what `status().state` says), without building the whole status: read on every call. */
  readonly state: ServerState;
  tools(): readonly Tool[];
  /** The last complete listing: its tools and the freshness the server gave it. */
  listing(): ToolListing;
  /**
   * Connects (unless lazy or disabled). Resolves once connected or failed; never rejects. With
   * `deferSpawn`, the state is `connecting` at once but the work (a process spawn) starts on a later
   * turn of the event loop.
   */
  start(options?: { deferSpawn?: boolean }): Promise<void>;
  /**
   * Connects now, lazy or not (an explicit restart); resolves once connected, rejects with the start
   * error (SERVER_START_FAILED, SERVER_START_TIMEOUT, AUTH, ...) or when disabled or closed.
   */
  connect(): Promise<void>;
  /**
   * Lists the tools again now, as a tools/list_changed would (connecting first if needed); resolves
   * once the new list is in place, rejects when connecting or listing fails.
   */
  refreshTools(): Promise<void>;
  /** The SDK client of the live session, if there is one (for requests beyond tool calls). */
  sessionClient(): Client | undefined;
  /** Connects now if idle or failed; resolves when usable, rejects with the reason otherwise. */
  ensureConnected(options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<void>;
  callTool(
    tool: string,
    args: Record<string, unknown> | undefined,
    options: ToolCallOptions,
  ): Promise<CallToolResult>;
  on<E extends keyof ConnectionEvents>(
    event: E,
    listener: (...args: ConnectionEvents[E]) => void,
  ): () => void;
  close(): Promise<void>;
}
