import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** The client (token) that opened it: a session id is never usable by another client. */
  readonly client: string | undefined;
}

const notFound = () =>
  Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found: initialize again" } },
    { status: 404 },
  );

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

  constructor(maxSessions: number) {
    this.#maxSessions = maxSessions;
  }

  get size(): number {
    return this.#sessions.size;
  }

  servers(): Server[] {
    return [...this.#sessions.values()].map((s) => s.server);
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
      if (!session || session.client !== authInfo?.clientId) return notFound();
      return session.transport.handleRequest(request, authInfo ? { authInfo } : {});
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
      return Response.json(
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: "Too many open sessions; try again later" },
        },
        { status: 503 },
      );
    }
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        this.#sessions.set(sessionId, { transport, server, client: authInfo?.clientId });
      },
      onsessionclosed: (sessionId) => {
        this.#sessions.delete(sessionId);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body, ...(authInfo ? { authInfo } : {}) });
  }

  /** Ends one session: its server's in-flight handlers are aborted, so their upstream calls are cancelled. */
  async drop(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    await session.server.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(all.map((s) => s.server.close()));
  }
}
