import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { identityOf } from "./authenticate.js";
import { abortFastCalls, cancelFastCall } from "./fast-path/fast-call.js";
import { sessionNotFound, tooManySessions } from "./wire-errors.js";

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** The identity (credential) that opened it: a session id is never usable with another credential. */
  readonly identity: string;
  /** Ends the session when no request has come for the idle time; reset by every request. */
  idle?: NodeJS.Timeout;
  /** POSTs being answered: the session is not idle while one runs. */
  active: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

const isInitialize = (body: unknown) =>
  typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";

/**
 * The 2025-11-25 handshake with sessions: an `initialize` POST opens a session (its own server
 * instance, so server-to-client notifications such as list_changed reach it over GET), later requests
 * name it with `Mcp-Session-Id`. Requests that are neither go to the stateless handler.
 */
export class LegacySessions {
  readonly #sessions = new Map<string, Session>();
  readonly #maxSessions: number;
  readonly #idleMs: number;

  /**
   * At most `maxSessions` open at once; a session without a request for `idleMs` (0: never) is closed,
   * so clients that vanished without a DELETE do not hold their slot and server instance forever. Its
   * client's next request gets 404 and initializes again, as the protocol prescribes.
   */
  constructor(maxSessions: number, idleMs: number) {
    this.#maxSessions = maxSessions;
    this.#idleMs = idleMs;
  }

  get size(): number {
    return this.#sessions.size;
  }

  servers(): Server[] {
    return [...this.#sessions.values()].map((s) => s.server);
  }

  /**
   * The server of open session `id` when `identity` owns it, its idle time restarted as by any of its
   * requests; undefined otherwise (the SDK path then answers as for an unknown session).
   */
  serverOf(id: string, identity: string): Server | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.identity !== identity) return undefined;
    this.#touch(id, session);
    return session.server;
  }

  /** The response, or undefined when the request belongs to the stateless path. */
  async handle(
    request: Request,
    authInfo: AuthInfo | undefined,
    newServer: () => Server,
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
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        const session: Session = { transport, server, identity: identityOf(authInfo), active: 0 };
        this.#sessions.set(sessionId, session);
        this.#touch(sessionId, session);
      },
      onsessionclosed: (sessionId) => this.#forget(sessionId),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#forget(transport.sessionId);
      abortFastCalls(server);
    };
    // Seen before the server's own dispatch (connect chains it): a cancellation may name a fast call.
    transport.onmessage = (message) => cancelFastCall(server, message);
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body, authInfo });
  }

  /**
   * Ends one session of `identity`: its server's in-flight handlers are aborted, so their upstream
   * calls are cancelled. Another credential cannot end it (by naming its id and hanging up).
   */
  async drop(id: string, identity?: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session || (identity !== undefined && session.identity !== identity)) return;
    this.#forget(id);
    await session.server.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.#sessions.values()];
    for (const session of all) clearTimeout(session.idle);
    this.#sessions.clear();
    await Promise.allSettled(all.map((s) => s.server.close()));
  }

  /**
   * Marks a POST of session `id` as running until the returned function is called (its response
   * written or dropped), so a long call is not taken for idleness. Only the session's own identity holds it.
   */
  hold(id: string, identity: string): () => void {
    const session = this.#sessions.get(id);
    if (!session || session.identity !== identity) return () => undefined;
    session.active++;
    clearTimeout(session.idle);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      session.active--;
      if (this.#sessions.get(id) === session) this.#touch(id, session);
    };
  }

  #touch(id: string, session: Session): void {
    clearTimeout(session.idle);
    if (this.#idleMs <= 0 || session.active > 0) return;
    // setTimeout fires at once for a delay past 2^31-1 ms: a longer idle time is as good as never.
    if (this.#idleMs > MAX_TIMER_MS) return;
    session.idle = setTimeout(() => void this.drop(id), this.#idleMs);
    session.idle.unref();
  }

  #forget(id: string): void {
    clearTimeout(this.#sessions.get(id)?.idle);
    this.#sessions.delete(id);
  }
}
