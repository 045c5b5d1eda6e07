import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { RunningCalls } from "../admission/running-calls.js";
import { sessionNotFound, tooManySessions } from "../wire-errors.js";
import { identityOf } from "./authenticate.js";

/**
 * A session's server instance and the calls a fast path runs on it (see fast-path/): what a
 * cancellation on the session's connection, or its end, aborts.
 */
export interface SessionInstance {
  readonly server: Server;
  readonly running: RunningCalls;
}

interface Session<I extends SessionInstance> {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly instance: I;
  /** The identity (credential) that opened it: a session id is never usable with another credential. */
  readonly identity: string;
  /** When its last request came (Date.now()): the sweep ends it once that is the idle time ago. */
  lastSeen: number;
  /** POSTs being answered: the session is not idle while one runs. */
  active: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Told what a session's life brings, so a cluster store can record it (cluster/session-ownership.ts):
 * opened (with its `initialize` params), each message its client sent, a request for it, its end.
 */
export interface SessionObserver {
  /**
   * Resolves once the session is recorded (bounded by the store's own time budget): the client learns
   * its session id only then, since its next request may reach a replica that looks it up.
   */
  opened(id: string, identity: string, init: Record<string, unknown>): Promise<void> | undefined;
  message(id: string, message: unknown): void;
  touched(id: string): void;
  /** The session ended for good (DELETE, idleness, its client gone): not when the gateway closes. */
  ended(id: string): void;
}

/** What rebuilds a session on another replica: its `initialize` params and the requests to replay. */
export interface SessionReplay {
  readonly init: Record<string, unknown>;
  readonly requests: readonly { readonly method: string; readonly params: Record<string, unknown> }[];
}

const isInitialize = (body: unknown) =>
  typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";

/**
 * The 2025-11-25 handshake with sessions: an `initialize` POST opens a session (its own server
 * instance, so server-to-client notifications such as list_changed reach it over GET), later requests
 * name it with `Mcp-Session-Id`. Requests that are neither go to the stateless handler.
 */
export class LegacySessions<I extends SessionInstance = SessionInstance> {
  readonly #sessions = new Map<string, Session<I>>();
  readonly #maxSessions: number;
  readonly #idleMs: number;
  /** Ends idle sessions: one timer for all of them (see #sweep). */
  readonly #sweeper: NodeJS.Timeout | undefined;

  /**
   * At most `maxSessions` open at once; a session without a request for `idleMs` (0: never) is closed,
   * so clients that vanished without a DELETE do not hold their slot and server instance forever. Its
   * client's next request gets 404 and initializes again, as the protocol prescribes.
   */
  readonly #observer: SessionObserver | undefined;
  /** Each new session's recording in the store (SessionObserver.opened), by its transport. */
  readonly #recorded = new WeakMap<WebStandardStreamableHTTPServerTransport, Promise<void>>();

  constructor(maxSessions: number, idleMs: number, observer?: SessionObserver) {
    this.#maxSessions = maxSessions;
    this.#idleMs = idleMs;
    // setTimeout fires at once for a delay past 2^31-1 ms: a longer idle time is as good as never.
    if (idleMs > 0 && idleMs <= MAX_TIMER_MS) {
      // Made here, at the gateway's start, not inside a request: a timer keeps the async context it
      // was made in (the request's response among it), which a timer per session kept alive for as
      // long as the session was idle.
      this.#sweeper = setInterval(() => this.#sweep(), Math.min(Math.max(idleMs / 4, 25), 60_000));
      this.#sweeper.unref();
    }
    this.#observer = observer;
  }

  /** Whether session `id` lives here. */
  holds(id: string): boolean {
    return this.#sessions.has(id);
  }

  get size(): number {
    return this.#sessions.size;
  }

  servers(): Server[] {
    return [...this.#sessions.values()].map((s) => s.instance.server);
  }

  /**
   * The server instance of open session `id` when `identity` owns it, its idle time restarted as by
   * any of its requests; undefined otherwise (the SDK path then answers as for an unknown session).
   */
  serverOf(id: string, identity: string): I | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.identity !== identity) return undefined;
    this.#touch(id, session);
    return session.instance;
  }

  /** The response, or undefined when the request belongs to the stateless path. */
  async handle(
    request: Request,
    authInfo: AuthInfo | undefined,
    newServer: () => I,
  ): Promise<Response | undefined> {
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = this.#sessions.get(id);
      // Another credential's session is answered exactly as one that does not exist.
      if (!session || session.identity !== identityOf(authInfo)) return sessionNotFound();
      this.#touch(id, session);
      return session.transport.handleRequest(request, { authInfo });
    }
    if (request.method !== "POST") return undefined;
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return undefined;
    }
    if (!isInitialize(body)) return undefined;
    if (this.#sessions.size >= this.#maxSessions) {
      return tooManySessions();
    }
    const transport = await this.#open(authInfo, newServer, () => randomUUID());
    const response = await transport.handleRequest(request, { parsedBody: body, authInfo });
    await this.#recorded.get(transport);
    return response;
  }

  /**
   * Rebuilds session `id` here (its owner replica is gone): a server instance initialized with the
   * client's own `initialize` params, then the requests that shaped it (log level, subscriptions)
   * replayed, as if its client had sent them again. `authInfo` must be the session's own identity's.
   */
  async restore(
    id: string,
    authInfo: AuthInfo | undefined,
    newServer: () => I,
    replay: SessionReplay,
  ): Promise<void> {
    if (this.#sessions.has(id) || this.#sessions.size >= this.#maxSessions) return;
    const transport = await this.#open(authInfo, newServer, () => id);
    const version = typeof replay.init.protocolVersion === "string" ? replay.init.protocolVersion : undefined;
    const send = async (message: Record<string, unknown>) => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      if (transport.sessionId) headers["mcp-session-id"] = transport.sessionId;
      if (transport.sessionId && version) headers["mcp-protocol-version"] = version;
      const request = new Request("http://gateway/mcp", {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", ...message }),
      });
      // The answers go nowhere: the client had them from the replica that is gone.
      await (await transport.handleRequest(request, { authInfo })).text().catch(() => undefined);
    };
    await send({ id: "restore-initialize", method: "initialize", params: replay.init });
    if (transport.sessionId !== id) return;
    await send({ method: "notifications/initialized" });
    let n = 0;
    for (const { method, params } of replay.requests) await send({ id: `restore-${++n}`, method, params });
  }

  async #open(
    authInfo: AuthInfo | undefined,
    newServer: () => I,
    sessionIdGenerator: () => string,
  ): Promise<WebStandardStreamableHTTPServerTransport> {
    const instance = newServer();
    const { server } = instance;
    const identity = identityOf(authInfo);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator,
      onsessioninitialized: (sessionId) => {
        const session: Session<I> = { transport, instance, identity, active: 0, lastSeen: Date.now() };
        this.#sessions.set(sessionId, session);
        this.#touch(sessionId, session);
      },
      onsessionclosed: (sessionId) => {
        this.#forget(sessionId);
        this.#observer?.ended(sessionId);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#forget(transport.sessionId);
      instance.running.abortAll();
    };
    // Seen before the server's own dispatch (connect chains it): a cancellation may name a fast call.
    transport.onmessage = (message) => instance.running.cancel(message);
    await server.connect(transport);
    const observer = this.#observer;
    if (observer) {
      // What the client asks of its session (its initialize, log level, subscriptions) is recorded.
      const deliver = transport.onmessage;
      transport.onmessage = (message, extra) => {
        const sessionId = transport.sessionId;
        const { method, params } = message as { method?: unknown; params?: unknown };
        if (method === "initialize" && sessionId && typeof params === "object" && params !== null) {
          const recorded = observer.opened(sessionId, identity, params as Record<string, unknown>);
          if (recorded)
            this.#recorded.set(
              transport,
              recorded.catch(() => undefined),
            );
        } else if (sessionId) observer.message(sessionId, message);
        deliver?.(message, extra);
      };
    }
    return transport;
  }

  /**
   * Ends one session of `identity`: its server's in-flight handlers are aborted, so their upstream
   * calls are cancelled. Another credential cannot end it (by naming its id and hanging up).
   */
  async drop(id: string, identity?: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session || (identity !== undefined && session.identity !== identity)) return;
    this.#forget(id);
    this.#observer?.ended(id);
    await session.instance.server.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.#sessions.values()];
    clearInterval(this.#sweeper);
    this.#sessions.clear();
    await Promise.allSettled(all.map((s) => s.instance.server.close()));
  }

  /**
   * Marks a POST of session `id` as running until the returned function is called (its response
   * written or dropped), so a long call is not taken for idleness. Only the session's own identity holds it.
   */
  hold(id: string, identity: string): () => void {
    const session = this.#sessions.get(id);
    if (!session || session.identity !== identity) return () => undefined;
    session.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      session.active--;
      if (this.#sessions.get(id) === session) this.#touch(id, session);
    };
  }

  #touch(id: string, session: Session<I>): void {
    this.#observer?.touched(id);
    session.lastSeen = Date.now();
  }

  /**
   * Ends every session without a request for the idle time and none running. One timer for all the
   * sessions rather than one each: a session then costs no timer (and nothing the timer would keep),
   * and is ended between its idle time and a quarter of it later (a minute at most).
   */
  #sweep(): void {
    const before = Date.now() - this.#idleMs;
    for (const [id, session] of this.#sessions)
      if (session.active === 0 && session.lastSeen <= before) void this.drop(id);
  }

  #forget(id: string): void {
    this.#sessions.delete(id);
  }
}
