import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";
import { ErrorCode, McpBridgeError } from "../errors/index.js";
import { httpStatusOf } from "../transport/create.js";
import type { ExitInfo } from "../transport/process-transport.js";
import { definedOnly } from "../util/defined.js";
import { TypedEmitter } from "../util/events.js";
import { SERVER_START_FAILED } from "../util/logger.js";
import { Semaphore } from "../util/semaphore.js";
import { errorText } from "../util/text-of.js";
import { canTransition, StateWaiters } from "./connection-state.js";
import { incompleteModernError, isIncompleteModernResult } from "./era-fallback.js";
import * as fail from "./failures.js";
import { HealthCheck, IdleTimer } from "./health-check.js";
import { Restarts } from "./reconnect-backoff.js";
import type {
  ConnectionEvents,
  ConnectionOptions,
  ServerConnection,
  ToolCallOptions,
} from "./server-connection.js";
import { ServerOutput } from "./server-output.js";
import type { ServerState, ServerStatus } from "./server-status.js";
import { retireSession, type Session, type ToolListing } from "./session.js";
import { type OpenerInput, openSession, relistTools, startError } from "./session-opener.js";
import { acquireCallSlot, sendToolCall, ToolIndex } from "./tool-call.js";

export type {
  ConnectionEvents,
  ConnectionOptions,
  ServerConnection,
  ToolCallOptions,
} from "./server-connection.js";
export { MAX_LIST_PAGES, type ToolListing } from "./session.js";

export function createConnection(definition: ServerDefinition, options: ConnectionOptions): ServerConnection {
  return new Connection(definition, options);
}

/**
 * The state machine of one server: connecting through session-opener.ts, reconnecting with backoff
 * after a crash, tool calls with their concurrency limit, and the waits of callers for a usable session.
 */
class Connection implements ServerConnection {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly #options: ConnectionOptions;
  readonly #events: TypedEmitter<ConnectionEvents>;
  readonly #output: ServerOutput;
  readonly #semaphore: Semaphore | undefined;
  readonly #waiters = new StateWaiters();
  readonly #toolIndex = new ToolIndex();
  readonly #health = new HealthCheck();
  readonly #idle = new IdleTimer();
  readonly #restarts: Restarts;
  /** What each session is opened with (plain data, fixed for the connection's life). */
  readonly #opener: OpenerInput;
  /** Aborted by close(): ends a start or a listing that is still waiting, whatever it waits for. */
  readonly #stop = new AbortController();

  #state: ServerState;
  #session: Session | undefined;
  #connecting: Promise<void> | undefined;
  #listing: ToolListing = { tools: [] };
  #lastError: McpBridgeError | undefined;
  /** What the last successful connect learnt; the pid is shown only while its session lives. */
  #info: Partial<Pick<ServerStatus, "protocolVersion" | "serverInfo" | "connectMs" | "pid">> = {};
  #restartCount = 0;
  #inFlight = 0;
  /** The server answered 2026-07-28 requests in the 2025 shape: reconnect with the 2025-11-25 handshake. */
  #legacyOnly = false;
  #closing: Promise<void> | undefined;

  constructor(definition: ServerDefinition, options: ConnectionOptions) {
    this.name = definition.name;
    this.definition = definition;
    this.#options = options;
    this.#events = new TypedEmitter((error) =>
      options.logger.error("A connection event listener threw", {
        server: this.name,
        error: errorText(error),
      }),
    );
    this.#output = new ServerOutput(this.name, options.logger, options.redact);
    this.#restarts = new Restarts(definition.restart, options.random);
    this.#opener = {
      name: this.name,
      definition,
      options,
      output: this.#output,
      stop: this.#stop.signal,
      onToolsChanged: (client) => this.#toolsAnnounced(client),
    };
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
      toolCount: this.#listing.tools.length,
      restarts: this.#restartCount,
      stderrTail: this.#output.stderr().map(redact),
      ...definedOnly({ ...this.#info, pid: this.#session === undefined ? undefined : this.#info.pid }),
      ...(this.#lastError === undefined
        ? {}
        : { lastError: { code: this.#lastError.code, message: redact(this.#lastError.message) } }),
    };
  }

  get state(): ServerState {
    return this.#state;
  }

  tools(): readonly Tool[] {
    return this.#listing.tools;
  }

  listing(): ToolListing {
    return this.#listing;
  }

  async start(options: { deferSpawn?: boolean } = {}): Promise<void> {
    if (this.#state !== "idle" || this.definition.lazy) return;
    await this.#connect("start", options.deferSpawn).catch(() => {});
  }

  async connect(): Promise<void> {
    if (this.#state === "disabled") throw fail.disabledError(this.name, undefined);
    if (this.#state === "closed") throw fail.closedError(this.name, undefined);
    if (this.#state === "connected" && this.#session && !this.#session.dead) return;
    await this.#connect("demand");
  }

  /**
   * Lists the tools again now, as a tools/list_changed would (connecting first if needed); resolves once
   * the new list is in place (and `toolsChanged` emitted), rejects when connecting or listing fails.
   */
  async refreshTools(): Promise<void> {
    await this.connect();
    const client = this.#session?.client;
    if (!client) throw fail.closedError(this.name, undefined);
    await this.#relist(client);
  }

  sessionClient(): Client | undefined {
    const session = this.#session;
    return session && !session.dead ? session.client : undefined;
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
    this.#idle.clear();
    try {
      if (this.#semaphore) {
        release = await acquireCallSlot(this.#semaphore, { server: this.name, tool }, options, deadline);
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
        if (remaining <= 0) throw fail.timeoutError(this.name, tool, options.timeoutMs);
        try {
          const plain = this.#toolIndex.withoutOutputSchema(tool, this.#listing.tools);
          return await sendToolCall(session, tool, args, options, remaining, plain);
        } catch (error) {
          if (isIncompleteModernResult(error) && session.client.getProtocolEra() !== "legacy") {
            this.#legacyOnly = true;
            const failure = incompleteModernError(this.name, tool, error);
            this.#abandon(session, failure, { immediate: true });
            throw failure;
          }
          if (!retried && this.definition.transport !== "stdio" && httpStatusOf(error) === 404) {
            this.#abandon(session, fail.staleSession(this.name, error), { immediate: true });
            continue;
          }
          const failure = fail.callFailure(error, this.#failureContext(), {
            tool,
            timeoutMs: options.timeoutMs,
            aborted: options.signal?.aborted === true,
            sessionDead: session.dead,
            exitReason: this.#session === undefined ? this.#lastError?.message : undefined,
          });
          if (failure.abandon) this.#abandon(session, failure.error);
          throw failure.error;
        }
      }
    } finally {
      release?.();
      this.#inFlight--;
      this.#armIdleTimer();
    }
  }

  close(): Promise<void> {
    if (!this.#closing) {
      this.#closing = (async () => {
        this.#stop.abort();
        this.#clearTimers();
        this.#setState("closed");
        const session = this.#session;
        this.#session = undefined;
        if (session) await retireSession(session);
        await this.#connecting?.catch(() => {});
        this.#events.clear();
      })();
    }
    return this.#closing;
  }

  // --- connecting ---

  /**
   * `reconnect` follows a crash (state `reconnecting`); `retry` is a background retry of a remote
   * server that could not be reached (the state stays `failed` until it connects).
   */
  #connect(reason: "start" | "reconnect" | "retry" | "demand", deferSpawn = false): Promise<void> {
    if (this.#connecting) return this.#connecting;
    if (reason === "start" || reason === "demand") this.#setState("connecting");
    // Deferred: the process is spawned (a synchronous fork, milliseconds each) once the current
    // macrotask has ended, so a host given its tools from the catalog cache gets them first.
    const opened = deferSpawn
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
          if (this.#stop.signal.aborted) throw fail.closedWhileStarting(this.name);
          return this.#open();
        })
      : this.#open();
    const attempt = opened.then(
      (session) => {
        this.#connecting = undefined;
        if (this.#closing) {
          void retireSession(session);
          return;
        }
        if (reason === "reconnect" || reason === "retry") this.#restartCount++;
        this.#session = session;
        this.#restarts.connected(() => session === this.#session);
        this.#lastError = undefined;
        this.#setState("connected");
        this.#options.logger.debug(
          `Server "${this.name}" connected with ${this.#listing.tools.length} tools in ${this.#info.connectMs ?? "?"} ms`,
          { server: this.name, tools: this.#listing.tools.length },
        );
        this.#health.start(
          this.definition.healthCheckIntervalMs,
          (timeout) => (session === this.#session ? session.client.ping({ timeout }) : Promise.resolve()),
          (error) => this.#abandon(session, fail.healthCheckFailed(this.#failureContext(), error)),
        );
        this.#armIdleTimer();
      },
      (error: unknown) => {
        this.#connecting = undefined;
        const failure = error instanceof McpBridgeError ? error : this.#startError(error, undefined);
        this.#lastError = failure;
        // A failed background retry leaves the state as it was: wake the calls that waited for it.
        this.#waiters.wakeAll();
        if (this.#closing) throw failure;
        if (reason === "reconnect") this.#scheduleReconnect();
        else {
          this.#setState("failed");
          this.#retryInBackground(failure);
        }
        // A warning: a server that does not start is something the host's user has to fix.
        this.#options.logger.warn(`Server "${this.name}" could not be connected`, {
          server: this.name,
          code: failure.code,
          error: this.#options.redact(failure.message),
          event: SERVER_START_FAILED,
        });
        throw failure;
      },
    );
    this.#connecting = attempt;
    return attempt;
  }

  async #open(): Promise<Session> {
    const opened = await openSession(this.#opener, this.#legacyOnly ? "legacy" : this.definition.negotiation);
    const { session } = opened;
    session.client.onclose = () => this.#onSessionClosed(session);
    session.client.onerror = (error) => this.#onSessionError(session, error);
    this.#info = {
      pid: session.created.process?.pid,
      protocolVersion: opened.protocolVersion,
      serverInfo: opened.serverInfo,
      connectMs: opened.connectMs,
    };
    this.#setTools(opened.listing);
    return session;
  }

  /** Lists the tools again and puts the list in place if the client is still the live session's. */
  async #relist(client: Client): Promise<void> {
    const listing = await relistTools(this.#opener, client);
    if (client === this.#session?.client) this.#setTools(listing);
  }

  /** A list_changed notification: list again; a failure is only a warning (the old list stays). */
  #toolsAnnounced(client: Client): void {
    if (client !== this.#session?.client) return;
    this.#relist(client).catch((error: unknown) =>
      this.#options.logger.warn(`Server "${this.name}" announced new tools, but listing them failed`, {
        server: this.name,
        error: fail.describeError(error, this.#options.redact),
      }),
    );
  }

  #setTools(listing: ToolListing): void {
    this.#listing = listing;
    this.#toolIndex.invalidate();
    this.#events.emit("toolsChanged", listing.tools);
  }

  // --- failures and reconnecting ---

  #onSessionClosed(session: Session): void {
    session.dead = true;
    if (session.retired || session !== this.#session) return;
    this.#session = undefined;
    this.#health.stop();
    if (this.#closing) return;
    this.#lastError = fail.unexpectedStop(this.#failureContext(), session.created.process?.exitInfo);
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
    this.#options.logger.debug(
      `Server "${this.name}" transport error: ${fail.describeError(error, this.#options.redact)}`,
      { server: this.name },
    );
    if (this.definition.transport === "stdio") return;
    if (fail.isNetworkFailure(error) || /Maximum reconnection attempts/.test(error.message)) {
      this.#abandon(session, fail.becameUnreachable(this.#failureContext(), error));
    }
  }

  #afterRuntimeFailure(): void {
    if (this.definition.restart.enabled) this.#scheduleReconnect();
    else this.#setState("failed");
  }

  #scheduleReconnect(): void {
    const scheduled = this.#restarts.schedule(() => {
      if (!this.#closing) this.#connect("reconnect").catch(() => {});
    });
    this.#setState(scheduled ? "reconnecting" : "failed");
    if (!scheduled) this.#retryInBackground(this.#lastError);
  }

  /**
   * A remote server that could not be reached (down at start, or down longer than the restart
   * attempts last) is retried in the background until close, at most `restart.retryCeilingMs`
   * apart. Not a stdio server (its crash loop ends `failed`), not a server without restarts, and not
   * an authorization failure (a retry cannot log in; it would only repeat the failure).
   */
  #retryInBackground(failure: McpBridgeError | undefined): void {
    if (this.definition.transport === "stdio" || !this.definition.restart.enabled) return;
    if (this.#closing || failure?.code === ErrorCode.Auth) return;
    this.#restarts.scheduleBackground(() => {
      if (!this.#closing && this.#state === "failed" && !this.#connecting) {
        this.#connect("retry").catch(() => {});
      }
    });
  }

  /** A session that is alive but no longer trustworthy (failed ping, fatal HTTP error): replace it. */
  #abandon(session: Session, reason: McpBridgeError, options: { immediate?: boolean } = {}): void {
    if (session !== this.#session || this.#closing) return;
    this.#session = undefined;
    this.#health.stop();
    this.#lastError = reason;
    void retireSession(session);
    if (options.immediate) {
      this.#setState("reconnecting");
      this.#connect("reconnect").catch(() => {});
    } else this.#afterRuntimeFailure();
  }

  async #usableSession(
    deadline: number,
    signal: AbortSignal | undefined,
    tool: string | undefined,
    timeoutMs = deadline - Date.now(),
  ): Promise<Session> {
    let hurried = false;
    for (;;) {
      if (signal?.aborted) throw fail.abortError(this.name, tool);
      const session = this.#session;
      if (this.#state === "connected" && session && !session.dead) return session;
      switch (this.#state) {
        case "closed":
          throw fail.closedError(this.name, tool);
        case "disabled":
          throw fail.disabledError(this.name, tool);
        case "idle":
          this.#connect("demand").catch(() => {});
          break;
        case "failed":
          // A call that needs a failed server retries it at once (one attempt per call; a background
          // retry under way is waited for instead).
          if (!this.#connecting) this.#connect("demand").catch(() => {});
          break;
        case "reconnecting":
          // The next restart is waiting for its backoff: the call needs the server now (once per
          // call, so waiting calls do not use up the restart attempts back to back).
          if (!this.#connecting && !hurried) hurried = this.#restarts.runNow();
          break;
        default:
          break;
      }
      await this.#waiters.next(deadline, signal);
      if (Date.now() >= deadline && !(this.#state === "connected" && this.#session)) {
        if (tool === undefined) throw this.#unavailableError(tool);
        throw fail.timeoutError(this.name, tool, timeoutMs, "while waiting for the server to (re)connect");
      }
      if (this.#state === "failed" && !this.#connecting) throw this.#unavailableError(tool);
    }
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
      if (this.#listing.tools.length > 0) this.#setTools({ tools: [] });
    }
    this.#waiters.wakeAll();
    this.#events.emit("stateChanged", this.status());
  }

  #armIdleTimer(): void {
    if (this.#state !== "connected") return;
    this.#idle.arm(this.definition.idleTimeoutMs, this.#inFlight > 0, () => {
      const session = this.#session;
      if (!session || this.#inFlight > 0 || this.#closing) return;
      this.#session = undefined;
      this.#health.stop();
      this.#setState("idle");
      void retireSession(session);
    });
  }

  #clearTimers(): void {
    this.#idle.clear();
    this.#health.stop();
    this.#restarts.clear();
    this.#waiters.wakeAll();
  }

  // --- errors ---

  #failureContext(): fail.FailureContext {
    return fail.failureContext(this.definition, this.#options.redact, this.#output.stderr());
  }

  #startError(error: unknown, exit: ExitInfo | undefined, timeoutMs = this.definition.startupTimeoutMs) {
    return startError(this.#opener, error, exit, timeoutMs);
  }

  #unavailableError(tool: string | undefined) {
    return fail.unavailableError(
      { server: this.name, redact: this.#options.redact },
      this.#state,
      this.#lastError,
      tool,
    );
  }
}
