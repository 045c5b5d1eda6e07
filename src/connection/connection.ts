import type {
  AuthProvider,
  CallToolResult,
  FetchLike,
  OAuthClientProvider,
  Tool,
  Transport,
} from "@modelcontextprotocol/client";
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import * as z from "zod";
import type { ServerDefinition } from "../config/model.js";
import {
  AbortError,
  ErrorCode,
  McpBridgeError,
  ServerConnectionError,
  ServerCrashedError,
  ToolExecutionError,
  ToolTimeoutError,
} from "../errors.js";
import {
  createTransport,
  httpStatusOf,
  looksLikeLegacySseServer,
  transportAttempts,
} from "../transport/create.js";
import { type NoiseKind, ProcessTransport, RESULT_TOO_LARGE_RPC_CODE } from "../transport/stdio.js";
import { backoffDelay } from "../util/backoff.js";
import { TypedEmitter } from "../util/events.js";
import type { Logger } from "../util/logger.js";
import { RingBuffer } from "../util/ring.js";
import { safeJsonSchemaValidator } from "../util/schema-engine.js";
import { Semaphore } from "../util/semaphore.js";
import { canTransition } from "./state.js";
import type { ServerState, ServerStatus } from "./status.js";

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
  /** Registers client-side handlers (elicitation, roots, ...) on every new SDK Client. */
  readonly configureClient?: (client: Client) => void;
  readonly random?: () => number;
}

export interface ToolCallOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  readonly resetTimeoutOnProgress?: boolean;
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
  tools(): readonly Tool[];
  /** Connects (unless lazy or disabled). Resolves once connected or failed; never rejects. */
  start(): Promise<void>;
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

export function createConnection(definition: ServerDefinition, options: ConnectionOptions): ServerConnection {
  return new Connection(definition, options);
}

interface Session {
  readonly client: Client;
  readonly transport: Transport;
  /** Set before closing a session on purpose, so its close is not taken for a crash. */
  retired: boolean;
  /** Set once the session's transport has closed. */
  dead: boolean;
}

const STDERR_LINES = 50;
/**
 * Most pages one listing may take. A server whose cursors never end (or take turns) is cut off here
 * rather than followed forever; 500 pages hold any real catalog (tens of thousands of tools).
 */
export const MAX_LIST_PAGES = 500;

const LENIENT_TOOL_PAGE = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const STDERR_LINE_CHARS = 1000;

class Connection implements ServerConnection {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly #options: ConnectionOptions;
  readonly #events: TypedEmitter<ConnectionEvents>;
  readonly #stderr = new RingBuffer<string>(STDERR_LINES);
  readonly #noiseReported = new Set<NoiseKind>();
  readonly #semaphore: Semaphore | undefined;
  readonly #stateWaiters = new Set<() => void>();

  #state: ServerState;
  #session: Session | undefined;
  #connecting: Promise<void> | undefined;
  #tools: readonly Tool[] = [];
  #lastError: McpBridgeError | undefined;
  #protocolVersion: string | undefined;
  #serverInfo: { name: string; version: string } | undefined;
  #connectMs: number | undefined;
  #pid: number | undefined;
  #restarts = 0;
  #attempt = 0;
  #lastAttemptEndedAt = 0;
  #inFlight = 0;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  /** Aborted by close(): ends a start or a listing that is still waiting, whatever it waits for. */
  readonly #stop = new AbortController();
  #stableTimer: NodeJS.Timeout | undefined;

  constructor(definition: ServerDefinition, options: ConnectionOptions) {
    this.name = definition.name;
    this.definition = definition;
    this.#options = options;
    this.#events = new TypedEmitter((error) =>
      options.logger.error("A connection event listener threw", { server: this.name, error: String(error) }),
    );
    this.#state = definition.enabled ? "idle" : "disabled";
    this.#semaphore = definition.maxConcurrency ? new Semaphore(definition.maxConcurrency) : undefined;
  }

  on<E extends keyof ConnectionEvents>(
    event: E,
    listener: (...args: ConnectionEvents[E]) => void,
  ): () => void {
    return this.#events.on(event, listener);
  }

  status(): ServerStatus {
    const redact = this.#options.redact;
    return {
      name: this.name,
      transport: this.definition.transport,
      state: this.#state,
      toolCount: this.#tools.length,
      restarts: this.#restarts,
      stderrTail: this.#stderr.toArray().map(redact),
      ...(this.#protocolVersion === undefined ? {} : { protocolVersion: this.#protocolVersion }),
      ...(this.#serverInfo === undefined ? {} : { serverInfo: this.#serverInfo }),
      ...(this.#connectMs === undefined ? {} : { connectMs: this.#connectMs }),
      ...(this.#lastError === undefined
        ? {}
        : { lastError: { code: this.#lastError.code, message: redact(this.#lastError.message) } }),
      ...(this.#pid === undefined || this.#session === undefined ? {} : { pid: this.#pid }),
    };
  }

  tools(): readonly Tool[] {
    return this.#tools;
  }

  async start(): Promise<void> {
    if (this.#state !== "idle" || this.definition.lazy) return;
    await this.#connect("start").catch(() => {});
  }

  async ensureConnected(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? this.definition.startupTimeoutMs);
    await this.#usableSession(deadline, options.signal, undefined);
  }

  async callTool(
    tool: string,
    args: Record<string, unknown> | undefined,
    options: ToolCallOptions,
  ): Promise<CallToolResult> {
    const deadline = Date.now() + options.timeoutMs;
    let release: (() => void) | undefined;
    this.#inFlight++;
    this.#clearIdleTimer();
    try {
      if (this.#semaphore) {
        const waitSignal = AbortSignal.any([
          ...(options.signal ? [options.signal] : []),
          AbortSignal.timeout(Math.max(0, deadline - Date.now())),
        ]);
        release = await this.#semaphore.acquire(waitSignal).catch(() => {
          throw this.#waitFailure(tool, options, options.timeoutMs);
        });
      }
      // One transparent retry when a restarted HTTP server no longer knows our session: the request
      // never ran there, so sending it again on a fresh session is safe.
      for (let retried = false; ; retried = true) {
        const current = this.#session;
        const session =
          this.#state === "connected" && current && !current.dead && !options.signal?.aborted
            ? current
            : await this.#usableSession(deadline, options.signal, tool, options.timeoutMs);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw this.#timeoutError(tool, options.timeoutMs);
        try {
          return await session.client.callTool(
            { name: tool, ...(args === undefined ? {} : { arguments: args }) },
            {
              timeout: options.resetTimeoutOnProgress ? options.timeoutMs : remaining,
              ...(options.signal ? { signal: options.signal } : {}),
              ...(options.onProgress ? { onprogress: options.onProgress } : {}),
              ...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true } : {}),
            },
          );
        } catch (error) {
          if (!retried && this.#isStaleSession(error)) {
            this.#abandon(
              session,
              new ServerConnectionError(
                ErrorCode.ServerUnavailable,
                `Server "${this.name}" no longer knows this session (HTTP 404); reconnecting.`,
                { server: this.name, cause: error },
              ),
              { immediate: true },
            );
            continue;
          }
          throw this.#classifyCallError(error, tool, options, session);
        }
      }
    } finally {
      release?.();
      this.#inFlight--;
      this.#armIdleTimer();
    }
  }

  #isStaleSession(error: unknown): boolean {
    return this.definition.transport !== "stdio" && httpStatusOf(error) === 404;
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = (async () => {
        this.#stop.abort();
        this.#clearTimers();
        this.#setState("closed");
        const session = this.#session;
        this.#session = undefined;
        if (session) await this.#retire(session);
        await this.#connecting?.catch(() => {});
        this.#events.clear();
      })();
    }
    return this.#closing;
  }

  // --- connecting ---

  #connect(reason: "start" | "reconnect" | "demand"): Promise<void> {
    if (this.#connecting) return this.#connecting;
    if (reason !== "reconnect") this.#setState("connecting");
    const attempt = this.#openSession().then(
      (session) => {
        this.#connecting = undefined;
        this.#lastAttemptEndedAt = Date.now();
        if (this.#closing) {
          void this.#retire(session);
          return;
        }
        if (reason === "reconnect") this.#restarts++;
        this.#session = session;
        this.#armStableTimer(session);
        this.#lastError = undefined;
        this.#setState("connected");
        this.#startHealthChecks(session);
        this.#armIdleTimer();
      },
      (error: unknown) => {
        this.#connecting = undefined;
        this.#lastAttemptEndedAt = Date.now();
        const failure = error instanceof McpBridgeError ? error : this.#startError(error);
        this.#lastError = failure;
        if (this.#closing) throw failure;
        if (reason === "reconnect") this.#scheduleReconnect();
        else this.#setState("failed");
        this.#options.logger.info(`Server "${this.name}" could not be connected`, {
          server: this.name,
          code: failure.code,
          error: this.#options.redact(failure.message),
        });
        throw failure;
      },
    );
    this.#connecting = attempt;
    return attempt;
  }

  async #openSession(): Promise<Session> {
    const started = performance.now();
    const timeoutMs = this.definition.startupTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    const attempts = transportAttempts(this.definition);
    let lastError: unknown;
    let authorizations = 0;
    for (let index = 0; index < attempts.length; index++) {
      const attempt = attempts[index] as (typeof attempts)[number];
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const transport = createTransport(this.definition, attempt, {
        ...(this.#options.hostEnv ? { hostEnv: this.#options.hostEnv } : {}),
        ...(this.#options.auth ? { authProvider: this.#options.auth.provider } : {}),
        ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
        ...(this.#options.stringCapBytes ? { stringCapBytes: this.#options.stringCapBytes } : {}),
        onStderrLine: (line) => this.#stderr.push(line.slice(0, STDERR_LINE_CHARS)),
        onNoise: (kind, sample) => this.#reportNoise(kind, sample),
      });
      const client = this.#newClient();
      const session: Session = { client, transport, retired: false, dead: false };
      try {
        // The deadline bounds the whole attempt (spawn, handshake, the SSE endpoint wait, every
        // listing page), not each request on its own; close() ends it at once.
        const tools = await this.#bounded(deadline, async () => {
          await client.connect(transport, { timeout: remaining });
          return this.#listTools(client, Math.max(1, deadline - Date.now()));
        });
        client.onclose = () => this.#onSessionClosed(session);
        client.onerror = (error) => this.#onSessionError(session, error);
        if (transport instanceof ProcessTransport) this.#pid = transport.pid;
        this.#protocolVersion = client.getNegotiatedProtocolVersion();
        const info = client.getServerVersion();
        this.#serverInfo = info ? { name: info.name, version: info.version } : undefined;
        this.#connectMs = Math.round(performance.now() - started);
        this.#setTools(tools);
        return session;
      } catch (error) {
        if (
          UnauthorizedError.isInstance(error) &&
          authorizations < 2 &&
          (await this.#finishAuthorization(transport))
        ) {
          authorizations++;
          session.retired = true;
          await client.close().catch(() => {});
          // The same transport kind again, now with a token.
          index--;
          continue;
        }
        lastError = this.#startError(error, transport, timeoutMs);
        session.retired = true;
        await client.close().catch(() => {});
        await transport.close().catch(() => {});
        const next = attempts[index + 1];
        if (next === "sse" && looksLikeLegacySseServer(error)) {
          this.#options.logger.debug(`Server "${this.name}" is not Streamable HTTP; trying legacy SSE`, {
            server: this.name,
          });
          continue;
        }
        throw lastError;
      }
    }
    throw (
      lastError ??
      this.#startError(new SdkError(SdkErrorCode.RequestTimeout, "startup timeout"), undefined, timeoutMs)
    );
  }

  /** Completes an OAuth authorization the SDK started during connect; true when there is a new token. */
  async #finishAuthorization(transport: Transport): Promise<boolean> {
    const params = await this.#options.auth?.authorizationResult().catch((error: unknown) => {
      this.#lastError = new McpBridgeError(
        ErrorCode.Auth,
        `Server "${this.name}": authorization failed: ${this.#describe(error)}`,
        {
          server: this.name,
          cause: error,
        },
      );
      return undefined;
    });
    if (!params) return false;
    const finish = (transport as { finishAuth?: (params: URLSearchParams) => Promise<void> }).finishAuth;
    if (!finish) return false;
    await finish.call(transport, params);
    return true;
  }

  #newClient(): Client {
    const negotiation = this.definition.negotiation;
    const client = new Client(
      { name: this.#options.clientInfo.name, version: this.#options.clientInfo.version },
      {
        // Server schemas are untrusted: the SDK's outputSchema checks run on the RE2-backed engines.
        jsonSchemaValidator: safeJsonSchemaValidator,
        versionNegotiation: { mode: negotiation },
        listMaxPages: MAX_LIST_PAGES,
        listChanged: {
          tools: {
            // We list ourselves (see #listTools) so that one malformed tool cannot hide all the others.
            autoRefresh: false,
            debounceMs: 50,
            onChanged: () => {
              if (client !== this.#session?.client) return;
              const deadline = Date.now() + this.definition.startupTimeoutMs;
              this.#bounded(deadline, () => this.#listTools(client, this.definition.startupTimeoutMs)).then(
                (tools) => {
                  if (client === this.#session?.client) this.#setTools(tools);
                },
                (error: unknown) =>
                  this.#options.logger.warn(
                    `Server "${this.name}" announced new tools, but listing them failed`,
                    {
                      server: this.name,
                      error: this.#describe(error),
                    },
                  ),
              );
            },
          },
        },
      },
    );
    this.#options.configureClient?.(client);
    return client;
  }

  async #listTools(client: Client, timeoutMs: number): Promise<Tool[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    try {
      return (await client.listTools(undefined, { timeout: timeoutMs })).tools;
    } catch (error) {
      if (!(SdkError.isInstance(error) && error.code === SdkErrorCode.InvalidResult)) throw error;
    }
    // The SDK rejects a whole list for one bad entry; take the pages as they are and let the registry
    // skip the bad entries one by one, with a warning naming each.
    this.#options.logger.warn(
      `Server "${this.name}" sent a malformed tool list; skipping the invalid entries`,
      {
        server: this.name,
      },
    );
    const tools: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const result = await client.request(
        { method: "tools/list", ...(cursor === undefined ? {} : { params: { cursor } }) },
        LENIENT_TOOL_PAGE,
        { timeout: timeoutMs },
      );
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
      if (seen.has(cursor)) throw this.#endlessListing(`repeated the cursor "${cursor.slice(0, 40)}"`);
      if (page >= MAX_LIST_PAGES) throw this.#endlessListing(`sent more than ${MAX_LIST_PAGES} pages`);
      seen.add(cursor);
    }
    return tools as Tool[];
  }

  /**
   * Runs `work` until the deadline or close(), whichever comes first. On either, the caller's
   * cleanup (closing the client and transport, which stops the process) ends what `work` waits on.
   */
  #bounded<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    const stop = this.#stop.signal;
    if (stop.aborted) return Promise.reject(this.#closedError());
    return new Promise<T>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        stop.removeEventListener("abort", onStop);
      };
      const onStop = () => {
        finish();
        reject(this.#closedError());
      };
      const timer = setTimeout(
        () => {
          stop.removeEventListener("abort", onStop);
          reject(new SdkError(SdkErrorCode.RequestTimeout, "startup deadline reached"));
        },
        Math.max(0, deadline - Date.now()),
      );
      stop.addEventListener("abort", onStop, { once: true });
      work().then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(error);
        },
      );
    });
  }

  #closedError(): McpBridgeError {
    return new McpBridgeError(
      ErrorCode.BridgeClosed,
      `Server "${this.name}" was closed while it was starting.`,
      {
        server: this.name,
      },
    );
  }

  #endlessListing(what: string): McpBridgeError {
    return new ServerConnectionError(
      ErrorCode.ServerStartFailed,
      `Server "${this.name}": tools/list pagination does not end (the server ${what}); the listing was stopped. Fix the server's cursors.`,
      { server: this.name },
    );
  }

  /** A (re)connected server counts as recovered, and the backoff resets, once it has stayed up. */
  #armStableTimer(session: Session): void {
    if (this.#stableTimer) clearTimeout(this.#stableTimer);
    this.#stableTimer = setTimeout(() => {
      this.#stableTimer = undefined;
      if (session === this.#session) this.#attempt = 0;
    }, this.definition.restart.stablePeriodMs);
    this.#stableTimer.unref();
  }

  #setTools(tools: readonly Tool[]): void {
    this.#tools = tools;
    this.#events.emit("toolsChanged", tools);
  }

  // --- failures and reconnecting ---

  #onSessionClosed(session: Session): void {
    session.dead = true;
    if (session.retired || session !== this.#session) return;
    this.#session = undefined;
    this.#stopHealthChecks();
    if (this.#closing) return;
    const exit = session.transport instanceof ProcessTransport ? session.transport.exitInfo : undefined;
    const how = exit ? (exit.signal ? ` (killed by ${exit.signal})` : ` (exit code ${exit.code})`) : "";
    this.#lastError = new ServerCrashedError(
      `Server "${this.name}" stopped unexpectedly${how}.${this.#stderrHint()}`,
      { server: this.name },
    );
    this.#options.logger.warn(`Server "${this.name}" connection closed unexpectedly`, { server: this.name });
    this.#afterRuntimeFailure();
  }

  /**
   * Transport errors outside any request. Over HTTP a dead server shows up only here (the SDK keeps
   * retrying the stream while requests wait for their timeout), so a network failure ends the session
   * at once: in-flight calls fail now, and the reconnect path takes over.
   */
  #onSessionError(session: Session, error: Error): void {
    if (session.retired || session !== this.#session) return;
    this.#options.logger.debug(`Server "${this.name}" transport error: ${this.#describe(error)}`, {
      server: this.name,
    });
    if (this.definition.transport === "stdio") return;
    if (isNetworkFailure(error) || /Maximum reconnection attempts/.test(error.message)) {
      this.#abandon(
        session,
        new ServerCrashedError(
          `Server "${this.name}" at ${this.#options.redact(this.definition.url)} became unreachable (${this.#describe(error)}); reconnecting.`,
          { server: this.name, cause: error },
        ),
      );
    }
  }

  #afterRuntimeFailure(): void {
    if (this.definition.restart.enabled) this.#scheduleReconnect();
    else this.#setState("failed");
  }

  #scheduleReconnect(): void {
    const policy = this.definition.restart;
    this.#attempt++;
    if (policy.maxAttempts > 0 && this.#attempt > policy.maxAttempts) {
      this.#setState("failed");
      return;
    }
    this.#setState("reconnecting");
    const delay = backoffDelay(this.#attempt, policy, this.#options.random);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.#closing) return;
      this.#connect("reconnect").catch(() => {});
    }, delay);
    this.#reconnectTimer.unref();
  }

  /** A session that is alive but no longer trustworthy (failed ping, fatal HTTP error): replace it. */
  #abandon(session: Session, reason: McpBridgeError, options: { immediate?: boolean } = {}): void {
    if (session !== this.#session || this.#closing) return;
    this.#session = undefined;
    this.#stopHealthChecks();
    this.#lastError = reason;
    void this.#retire(session);
    if (options.immediate) {
      this.#setState("reconnecting");
      this.#connect("reconnect").catch(() => {});
    } else this.#afterRuntimeFailure();
  }

  async #retire(session: Session): Promise<void> {
    session.retired = true;
    await session.client.close().catch(() => {});
    await session.transport.close().catch(() => {});
  }

  async #usableSession(
    deadline: number,
    signal: AbortSignal | undefined,
    tool: string | undefined,
    timeoutMs = deadline - Date.now(),
  ): Promise<Session> {
    for (;;) {
      if (signal?.aborted) throw this.#abortError(tool);
      const session = this.#session;
      if (this.#state === "connected" && session && !session.dead) return session;
      switch (this.#state) {
        case "closed":
          throw new McpBridgeError(ErrorCode.BridgeClosed, `Server "${this.name}" is closed.`, {
            server: this.name,
            ...(tool === undefined ? {} : { tool }),
          });
        case "disabled":
          throw new ServerConnectionError(
            ErrorCode.ServerUnavailable,
            `Server "${this.name}" is disabled in the config; enable it to use${tool ? ` tool "${tool}"` : " it"}.`,
            { server: this.name, ...(tool === undefined ? {} : { tool }) },
          );
        case "idle":
          this.#connect("demand").catch(() => {});
          break;
        case "failed":
          // Retry on demand, but not more often than the restart policy's first delay.
          if (Date.now() - this.#lastAttemptEndedAt >= this.definition.restart.initialDelayMs) {
            this.#connect("demand").catch(() => {});
          } else throw this.#unavailableError(tool);
          break;
        default:
          break;
      }
      await this.#waitForStateChange(deadline, signal);
      if (Date.now() >= deadline && !(this.#state === "connected" && this.#session)) {
        if (tool === undefined) throw this.#unavailableError(tool);
        throw this.#timeoutError(tool, timeoutMs, "while waiting for the server to (re)connect");
      }
      if (this.#state === "failed" && !this.#connecting) throw this.#unavailableError(tool);
    }
  }

  #waitForStateChange(deadline: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.#stateWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      signal?.addEventListener("abort", done, { once: true });
      this.#stateWaiters.add(done);
    });
  }

  #setState(next: ServerState): void {
    const previous = this.#state;
    if (previous === next && next !== "reconnecting") return;
    if (!canTransition(previous, next)) {
      this.#options.logger.debug(`Ignored state change ${previous} -> ${next}`, { server: this.name });
      return;
    }
    this.#state = next;
    if (next === "failed" || next === "closed") {
      if (this.#tools.length > 0) this.#setTools([]);
    }
    for (const wake of [...this.#stateWaiters]) wake();
    this.#events.emit("stateChanged", this.status());
  }

  // --- health and idleness ---

  #startHealthChecks(session: Session): void {
    const interval = this.definition.healthCheckIntervalMs;
    if (interval <= 0) return;
    let pinging = false;
    this.#healthTimer = setInterval(() => {
      if (pinging || session !== this.#session) return;
      pinging = true;
      session.client
        .ping({ timeout: Math.min(interval, 10_000) })
        .catch((error: unknown) => {
          this.#abandon(
            session,
            new ServerConnectionError(
              ErrorCode.ServerUnavailable,
              `Server "${this.name}" did not answer a health-check ping (${this.#describe(error)}); reconnecting.`,
              { server: this.name, cause: error },
            ),
          );
        })
        .finally(() => {
          pinging = false;
        });
    }, interval);
    this.#healthTimer.unref();
  }

  #stopHealthChecks(): void {
    if (this.#healthTimer) clearInterval(this.#healthTimer);
    this.#healthTimer = undefined;
  }

  #armIdleTimer(): void {
    const idle = this.definition.idleTimeoutMs;
    if (!idle || this.#inFlight > 0 || this.#state !== "connected") return;
    this.#clearIdleTimer();
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      const session = this.#session;
      if (!session || this.#inFlight > 0 || this.#closing) return;
      this.#session = undefined;
      this.#stopHealthChecks();
      this.#setState("idle");
      void this.#retire(session);
    }, idle);
    this.#idleTimer.unref();
  }

  #clearIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #clearTimers(): void {
    this.#clearIdleTimer();
    this.#stopHealthChecks();
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    if (this.#stableTimer) clearTimeout(this.#stableTimer);
    this.#stableTimer = undefined;
    for (const wake of [...this.#stateWaiters]) wake();
  }

  // --- errors ---

  #reportNoise(kind: NoiseKind, sample: string): void {
    if (this.#noiseReported.has(kind)) return;
    this.#noiseReported.add(kind);
    const what = {
      "non-json": "non-JSON output",
      "not-json-rpc": "JSON that is not a JSON-RPC message",
      oversized: "a message larger than maxMessageBytes",
    }[kind];
    this.#options.logger.warn(
      `Server "${this.name}" wrote ${what} on stdout; such lines are skipped (reported once per kind)`,
      { server: this.name, sample: this.#options.redact(sample) },
    );
  }

  #stderrHint(): string {
    const tail = this.#stderr
      .toArray()
      .filter((line) => line.trim() !== "")
      .slice(-3);
    return tail.length > 0 ? ` Last stderr: ${this.#options.redact(tail.join(" | "))}` : "";
  }

  #describe(error: unknown): string {
    return this.#options.redact(error instanceof Error ? error.message : String(error));
  }

  #startError(
    error: unknown,
    transport?: Transport,
    timeoutMs = this.definition.startupTimeoutMs,
  ): McpBridgeError {
    if (error instanceof McpBridgeError) return error;
    const fields = {
      server: this.name,
      cause: error,
      stderrTail: this.#stderr.toArray().map(this.#options.redact),
    };
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (this.definition.transport === "stdio" && (code === "ENOENT" || code === "EACCES")) {
      return new ServerConnectionError(
        ErrorCode.ServerStartFailed,
        `Server "${this.name}": cannot run command "${this.definition.command}" (${code}). Check the command and PATH in the config.`,
        fields,
      );
    }
    if (SdkError.isInstance(error) && error.code === SdkErrorCode.ListPaginationExceeded) {
      return this.#endlessListing(`sent more than ${MAX_LIST_PAGES} pages`);
    }
    if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout) {
      return new ServerConnectionError(
        ErrorCode.ServerStartTimeout,
        `Server "${this.name}" did not complete the MCP handshake within ${timeoutMs} ms; it was stopped. Raise startupTimeout if it is just slow.${this.#stderrHint()}`,
        fields,
      );
    }
    const exit = transport instanceof ProcessTransport ? transport.exitInfo : undefined;
    if (exit) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      return new ServerConnectionError(
        ErrorCode.ServerStartFailed,
        `Server "${this.name}" ${how} before completing the MCP handshake.${this.#stderrHint() || " It wrote nothing to stderr."}`,
        fields,
      );
    }
    const status = httpStatusOf(error);
    const where =
      this.definition.transport === "stdio" ? "" : ` at ${this.#options.redact(this.definition.url)}`;
    if (status === 401 || UnauthorizedError.isInstance(error)) {
      return new ServerConnectionError(
        ErrorCode.ServerStartFailed,
        `Server "${this.name}"${where} requires authorization: run \`mcp-bridge auth login ${this.name}\`, or configure its oauth settings or an Authorization header.`,
        fields,
      );
    }
    return new ServerConnectionError(
      ErrorCode.ServerStartFailed,
      `Server "${this.name}"${where} could not be connected${status ? ` (HTTP ${status})` : ""}: ${this.#describe(error)}${this.#stderrHint()}`,
      fields,
    );
  }

  #classifyCallError(
    error: unknown,
    tool: string,
    options: ToolCallOptions,
    session: Session,
  ): McpBridgeError {
    if (error instanceof McpBridgeError) return error;
    const fields = { server: this.name, tool, cause: error };
    if (options.signal?.aborted) return this.#abortError(tool, error);
    if (SdkError.isInstance(error)) {
      switch (error.code) {
        case SdkErrorCode.RequestTimeout:
          return this.#timeoutError(tool, options.timeoutMs);
        case SdkErrorCode.ConnectionClosed:
        case SdkErrorCode.NotConnected:
          return this.#crashError(tool, error);
        case SdkErrorCode.SendFailed:
        case SdkErrorCode.ClientHttpFailedToOpenStream: {
          const crash = this.#crashError(tool, error);
          this.#abandon(session, crash);
          return crash;
        }
        default:
          break;
      }
    }
    if (ProtocolError.isInstance?.(error) || error instanceof ProtocolError) {
      const protocolError = error as ProtocolError;
      if (protocolError.code === RESULT_TOO_LARGE_RPC_CODE) {
        return new McpBridgeError(
          ErrorCode.ResultTooLarge,
          `Tool "${tool}" on server "${this.name}": ${protocolError.message}`,
          fields,
        );
      }
      return new ToolExecutionError(
        `Server "${this.name}" rejected the call to tool "${tool}": ${this.#describe(protocolError)} (JSON-RPC ${protocolError.code})`,
        { ...fields, rpcCode: protocolError.code },
      );
    }
    if (session.dead) return this.#crashError(tool, error);
    if (
      this.definition.transport !== "stdio" &&
      (isNetworkFailure(error) || (httpStatusOf(error) ?? 0) >= 500)
    ) {
      const crash = this.#crashError(tool, error);
      this.#abandon(session, crash);
      return crash;
    }
    return new ToolExecutionError(
      `Call to tool "${tool}" on server "${this.name}" failed: ${this.#describe(error)}`,
      fields,
    );
  }

  #crashError(tool: string, cause: unknown): ServerCrashedError {
    const fields = { server: this.name, tool, cause };
    if (this.definition.transport !== "stdio") {
      return new ServerCrashedError(
        `Server "${this.name}" at ${this.#options.redact(this.definition.url)} became unreachable while tool "${tool}" was running (${this.#describe(cause)}). mcp-bridge reconnects automatically; retry the call.`,
        fields,
      );
    }
    const exit = this.#session === undefined ? this.#lastError?.message : undefined;
    return new ServerCrashedError(
      `Server "${this.name}" stopped while tool "${tool}" was running${exit ? `: ${exit}` : "."} mcp-bridge restarts it automatically; retry the call.`,
      fields,
    );
  }

  #timeoutError(tool: string, timeoutMs: number, detail = ""): ToolTimeoutError {
    return new ToolTimeoutError(
      `Tool "${tool}" on server "${this.name}" did not finish within ${timeoutMs} ms${detail ? ` ${detail}` : ""}; the request was cancelled. Raise the call timeout if the tool is just slow.`,
      { server: this.name, tool, timeoutMs },
    );
  }

  #abortError(tool: string | undefined, cause?: unknown): AbortError {
    return new AbortError(
      tool === undefined
        ? `Connecting to server "${this.name}" was aborted by the caller.`
        : `Call to tool "${tool}" on server "${this.name}" was aborted by the caller; the request was cancelled on the server.`,
      {
        server: this.name,
        ...(tool === undefined ? {} : { tool }),
        ...(cause === undefined ? {} : { cause }),
      },
    );
  }

  #unavailableError(tool: string | undefined): ServerConnectionError {
    const reason = this.#lastError ? ` Last error: ${this.#options.redact(this.#lastError.message)}` : "";
    return new ServerConnectionError(
      ErrorCode.ServerUnavailable,
      `Server "${this.name}" is not connected (state: ${this.#state}).${reason}`,
      { server: this.name, ...(tool === undefined ? {} : { tool }) },
    );
  }

  #waitFailure(tool: string, options: ToolCallOptions, timeoutMs: number): McpBridgeError {
    return options.signal?.aborted
      ? this.#abortError(tool)
      : this.#timeoutError(tool, timeoutMs, "while queued");
  }
}

function isNetworkFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)
    ) {
      return true;
    }
    if (current instanceof TypeError && current.message === "fetch failed") return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
