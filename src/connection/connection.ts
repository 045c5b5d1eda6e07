import type { CallToolResult, Client, Tool } from "@modelcontextprotocol/client";
import { isRemote, type ServerDefinition } from "../config/model.js";
import { incompleteModernResult } from "../errors/index.js";
import { httpStatusOf } from "../transport/transport-kinds.js";
import { isIncompleteModernResult } from "./era-fallback.js";
import * as fail from "./failures.js";
import {
  armIdleTimer,
  createLiveConnection,
  failureContext,
  type LiveConnection,
  relist,
  setState,
  statusOf,
  unavailableError,
} from "./live-connection.js";
import { abandon, connect } from "./reconnect.js";
import type {
  ConnectionEvents,
  ConnectionOptions,
  ServerConnection,
  ToolCallOptions,
} from "./server-connection.js";
import type { ServerState, ServerStatus } from "./server-status.js";
import { retireSession, type Session, type ToolListing } from "./session.js";
import { acquireCallSlot, sendToolCall } from "./tool-call.js";

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
 * One server as its users see it: tool calls with their concurrency limit and the waits of callers
 * for a usable session, over the live state (live-connection.ts) that reconnect.ts connects, keeps
 * up and replaces.
 */
class Connection implements ServerConnection {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly #live: LiveConnection;

  constructor(definition: ServerDefinition, options: ConnectionOptions) {
    this.name = definition.name;
    this.definition = definition;
    this.#live = createLiveConnection(definition, options);
  }

  on<E extends keyof ConnectionEvents>(
    event: E,
    listener: (...args: ConnectionEvents[E]) => void,
  ): () => void {
    return this.#live.events.on(event, listener);
  }

  status(): ServerStatus {
    return statusOf(this.#live);
  }

  get state(): ServerState {
    return this.#live.state;
  }

  tools(): readonly Tool[] {
    return this.#live.listing.tools;
  }

  listing(): ToolListing {
    return this.#live.listing;
  }

  async start(options: { deferSpawn?: boolean } = {}): Promise<void> {
    if (this.#live.state !== "idle" || this.definition.lazy) return;
    await connect(this.#live, "start", options.deferSpawn).catch(() => {});
  }

  async connect(): Promise<void> {
    const live = this.#live;
    if (live.state === "disabled") throw fail.disabledError(this.name, undefined);
    if (live.state === "closed") throw fail.closedError(this.name, undefined);
    if (live.state === "connected" && live.session && !live.session.dead) return;
    await connect(live, "demand");
  }

  /**
   * Lists the tools again now, as a tools/list_changed would (connecting first if needed); resolves once
   * the new list is in place (and `toolsChanged` emitted), rejects when connecting or listing fails.
   */
  async refreshTools(): Promise<void> {
    await this.connect();
    const client = this.#live.session?.client;
    if (!client) throw fail.closedError(this.name, undefined);
    await relist(this.#live, client);
  }

  sessionClient(): Client | undefined {
    const session = this.#live.session;
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
    const live = this.#live;
    const deadline = Date.now() + options.timeoutMs;
    let release: (() => void) | undefined;
    live.inFlight++;
    live.idle.clear();
    try {
      if (live.semaphore) {
        release = await acquireCallSlot(live.semaphore, { server: this.name, tool }, options, deadline);
      }
      // One transparent retry when a restarted HTTP server no longer knows our session: the request
      // never ran there, so sending it again on a fresh session is safe.
      for (let retried = false; ; retried = true) {
        const current = live.session;
        const session =
          live.state === "connected" && current && !current.dead && !options.signal?.aborted
            ? current
            : await this.#usableSession(deadline, options.signal, tool, options.timeoutMs);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw fail.timeoutError(this.name, tool, options.timeoutMs);
        try {
          const plain = options.inputRound
            ? live.toolIndex.forRounds(tool, live.listing.tools)
            : live.toolIndex.withoutOutputSchema(tool, live.listing.tools);
          return await sendToolCall(session, tool, args, options, remaining, plain);
        } catch (error) {
          if (isIncompleteModernResult(error) && session.client.getProtocolEra() !== "legacy") {
            live.legacyOnly = true;
            const failure = incompleteModernResult({ server: this.name, tool, cause: error });
            abandon(live, session, failure, { immediate: true });
            throw failure;
          }
          if (!retried && isRemote(this.definition.transport) && httpStatusOf(error) === 404) {
            abandon(live, session, fail.staleSession(this.name, error), { immediate: true });
            continue;
          }
          const failure = fail.callFailure(error, failureContext(live), {
            tool,
            timeoutMs: options.timeoutMs,
            aborted: options.signal?.aborted === true,
            sessionDead: session.dead,
            exitReason: live.session === undefined ? live.lastError?.message : undefined,
          });
          if (failure.abandon) abandon(live, session, failure.error);
          throw failure.error;
        }
      }
    } finally {
      release?.();
      live.inFlight--;
      armIdleTimer(live);
    }
  }

  close(): Promise<void> {
    const live = this.#live;
    if (!live.closing) {
      live.closing = (async () => {
        live.stop.abort();
        live.idle.clear();
        live.health.stop();
        live.restarts.clear();
        live.waiters.wakeAll();
        setState(live, "closed");
        const session = live.session;
        live.session = undefined;
        if (session) await retireSession(session);
        await live.connecting?.catch(() => {});
        live.events.clear();
      })();
    }
    return live.closing;
  }

  async #usableSession(
    deadline: number,
    signal: AbortSignal | undefined,
    tool: string | undefined,
    timeoutMs = deadline - Date.now(),
  ): Promise<Session> {
    const live = this.#live;
    let hurried = false;
    for (;;) {
      if (signal?.aborted) throw fail.abortError(this.name, tool);
      const session = live.session;
      if (live.state === "connected" && session && !session.dead) return session;
      switch (live.state) {
        case "closed":
          throw fail.closedError(this.name, tool);
        case "disabled":
          throw fail.disabledError(this.name, tool);
        case "idle":
          connect(live, "demand").catch(() => {});
          break;
        case "failed":
          // A call that needs a failed server retries it at once (one attempt per call; a background
          // retry under way is waited for instead).
          if (!live.connecting) connect(live, "demand").catch(() => {});
          break;
        case "reconnecting":
          // The next restart is waiting for its backoff: the call needs the server now (once per
          // call, so waiting calls do not use up the restart attempts back to back).
          if (!live.connecting && !hurried) hurried = live.restarts.runNow();
          break;
        default:
          break;
      }
      await live.waiters.next(deadline, signal);
      if (Date.now() >= deadline && !(live.state === "connected" && live.session)) {
        if (tool === undefined) throw unavailableError(live, tool);
        throw fail.timeoutError(this.name, tool, timeoutMs, "while waiting for the server to (re)connect");
      }
      if (live.state === "failed" && !live.connecting) throw unavailableError(live, tool);
    }
  }
}
