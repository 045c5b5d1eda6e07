import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Bridge } from "../../bridge/api.js";
import {
  daemonClientDisconnected,
  daemonRequestNotJson,
  daemonRequestTooLarge,
} from "../../errors/daemon-errors.js";
import { ErrorCode, isMcpBridgeError } from "../../errors/index.js";
import type { Logger } from "../../util/logger.js";
import { errorText } from "../../util/text-of.js";
import { statusDocument } from "./documents.js";
import { answerOperation } from "./operations.js";
import type { DaemonPaths } from "./paths.js";
import {
  ATTACH_MODE_HEADER,
  ATTACH_RESULTS_HEADER,
  ATTACH_UPGRADE,
  type DaemonInfo,
  type Envelope,
  HEARTBEAT_MS,
  type ResponseLine,
} from "./protocol.js";

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A request body bigger than this is not a CLI's (arguments are given on a command line). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface DaemonOptions {
  readonly bridge: Bridge;
  readonly paths: DaemonPaths;
  /** Shut down after this long without a request. */
  readonly idleMs: number;
  readonly logger: Logger;
  readonly version: string;
  /**
   * Serves one attached MCP session (`mcp-bridge attach`) on a connection upgraded to the attach
   * protocol; without it such a connection is refused. Given by the application that starts the
   * daemon (the gateway's stdio server over this daemon's one bridge).
   */
  readonly attach?: (channel: Duplex, mode: AttachMode) => AttachedSession;
  /**
   * Marks a CLI request as running on a server (the forwarder's `occupy`): a question that server asks
   * meanwhile may be this request's doing, so it is never put to an attached session.
   */
  readonly occupy?: (server: string) => () => void;
}

/** How an attached session asked to be served (headers of its upgrade request). */
export interface AttachMode {
  /** `attach --code-mode`: only the three code-mode tools. */
  readonly codeMode: boolean;
  /** `attach --llm-results`: tool results as the library gives them to a model (GatewayOptions.llmResults). */
  readonly llmResults: boolean;
}

/** One `mcp-bridge attach` session the daemon serves. */
export interface AttachedSession {
  /** Resolves when the channel ended, however. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface RunningDaemon {
  /** Resolves once the daemon has shut down (idle, `shutdown`, or `stop()`), its socket removed. */
  readonly stopped: Promise<void>;
  stop(reason: string): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(daemonRequestTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve(text ? JSON.parse(text) : {});
      } catch {
        reject(daemonRequestNotJson());
      }
    });
    req.on("error", reject);
  });
}

/**
 * Why the daemon will not answer a request, if it will not: a client of another config or another
 * version (whose protocol may differ) gets 409, anything but POST 405. `daemon` and `shutdown` answer
 * any config and version, so an old daemon can be seen and stopped.
 */
function refusal(
  req: IncomingMessage,
  operation: string,
  config: string,
  version: string,
  method = "POST",
): { status: number; error: { code: string; message: string } } | undefined {
  const managing = operation === "daemon" || operation === "shutdown";
  const asked = req.headers["mcp-bridge-config"];
  if (!managing && typeof asked === "string" && safeDecode(asked) !== config) {
    return {
      status: 409,
      error: { code: ErrorCode.DaemonUnavailable, message: `This daemon serves ${config}` },
    };
  }
  const theirs = req.headers["mcp-bridge-version"];
  if (!managing && typeof theirs === "string" && theirs !== version) {
    return {
      status: 409,
      error: {
        code: ErrorCode.DaemonUnavailable,
        message: `This daemon is mcp-bridge ${version}, the client ${theirs}: restart it with \`mcp-bridge daemon stop\` and \`daemon start\`.`,
      },
    };
  }
  if (req.method !== method)
    return { status: 405, error: { code: ErrorCode.Usage, message: `Only ${method}` } };
  return undefined;
}

/** The servers a CLI operation runs on, each marked occupied until it ends (see DaemonOptions.occupy). */
function occupied(
  bridge: Bridge,
  operation: string,
  body: unknown,
  occupy: (server: string) => () => void,
): (() => void)[] {
  const request = (body ?? {}) as { name?: unknown; server?: unknown };
  if (typeof request.server === "string") return [occupy(request.server)];
  if (operation === "call" && typeof request.name === "string") {
    const server = bridge.resolve(request.name)?.server;
    return server === undefined ? [] : [occupy(server)];
  }
  // A read or prompt without --server may run on any server: all of them.
  if (operation === "read" || operation === "prompt") return bridge.servers().map((s) => occupy(s.name));
  return [];
}

/**
 * Serves a running bridge on the daemon's Unix socket (see protocol.ts). The socket is created 0600
 * inside the 0700 runtime folder; a client that disconnects mid-request cancels its operation and
 * nothing else; after `idleMs` without a request the daemon closes the bridge and stops.
 */
export async function serveDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const daemon = new DaemonServer(options);
  await daemon.listen();
  return daemon;
}

/** The daemon's socket server: its requests, its attached sessions and its idle timer (serveDaemon). */
class DaemonServer implements RunningDaemon {
  readonly #options: DaemonOptions;
  readonly #startedAt = Date.now();
  #inflight = 0;
  /** The attached MCP sessions with their sockets: each counts as a request in flight while it lasts. */
  readonly #attached = new Map<Duplex, AttachedSession>();
  #idleTimer: NodeJS.Timeout | undefined;
  #stopping: Promise<void> | undefined;
  #resolveStopped: () => void = () => {};
  readonly stopped = new Promise<void>((resolve) => {
    this.#resolveStopped = resolve;
  });
  readonly #server = createServer((req, res) => this.#request(req, res));

  constructor(options: DaemonOptions) {
    this.#options = options;
    this.#server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrade(req, socket, head),
    );
    // Keep-alive would hold a finished CLI's connection open; every request is one connection.
    this.#server.keepAliveTimeout = 0;
  }

  async listen(): Promise<void> {
    const { paths, logger } = this.#options;
    const server = this.#server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // No window with a socket others could open: the file is created under a 0177 umask.
      const umask = process.umask(0o177);
      server.listen(paths.socket, () => {
        process.umask(umask);
        server.off("error", reject);
        resolve();
      });
    });
    chmodSync(paths.socket, 0o600);
    logger.info(`Daemon ${process.pid} serving ${paths.config} on ${paths.socket}`);
    this.#armIdle();
  }

  readonly stop = (reason: string): Promise<void> => {
    if (this.#stopping) return this.#stopping;
    clearTimeout(this.#idleTimer);
    this.#options.logger.info(`Daemon stopping: ${reason}`);
    this.#stopping = (async () => {
      await new Promise<void>((resolve) => {
        this.#server.close(() => resolve());
        this.#server.closeAllConnections();
        // Upgraded connections are no longer the HTTP server's: each attached shim reconnects.
        for (const socket of this.#attached.keys()) socket.destroy();
      });
      try {
        unlinkSync(this.#options.paths.socket);
      } catch {
        // already gone
      }
      await this.#options.bridge.close();
      this.#resolveStopped();
    })();
    return this.#stopping;
  };

  /** A request or attached session begins: the daemon is not idle while it lasts. */
  #begin(): void {
    this.#inflight++;
    clearTimeout(this.#idleTimer);
  }

  #end(): void {
    this.#inflight--;
    this.#armIdle();
  }

  #armIdle(): void {
    const { idleMs } = this.#options;
    clearTimeout(this.#idleTimer);
    // An infinite idle time (never stop) must not reach setTimeout, which would fire at once.
    if (this.#inflight === 0 && !this.#stopping && Number.isFinite(idleMs))
      this.#idleTimer = setTimeout(() => void this.stop(`idle for ${idleMs} ms`), idleMs);
  }

  #info(): DaemonInfo & { servers: unknown } {
    const { paths, idleMs, version, bridge } = this.#options;
    return {
      pid: process.pid,
      // Requests being answered besides this one.
      activeRequests: this.#inflight - 1 - this.#attached.size,
      attachedSessions: this.#attached.size,
      socket: paths.socket,
      config: paths.config,
      startedAt: new Date(this.#startedAt).toISOString(),
      uptimeMs: Date.now() - this.#startedAt,
      idleMs,
      version,
      servers: (statusDocument(bridge).document as { servers: unknown }).servers,
    };
  }

  async #answer(
    operation: string,
    body: unknown,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<Envelope> {
    const { bridge, occupy } = this.#options;
    if (operation === "daemon") return { document: this.#info(), exitCode: 0, warnings: [] };
    if (operation === "shutdown") {
      setImmediate(() => void this.stop("asked to stop"));
      return { document: { stopping: true, pid: process.pid }, exitCode: 0, warnings: [] };
    }
    const release = occupy ? occupied(bridge, operation, body, occupy) : [];
    try {
      return await answerOperation(bridge, operation, body, signal, (progress) => {
        if (!res.writableEnded && !res.destroyed)
          res.write(`${JSON.stringify({ progress } satisfies ResponseLine)}\n`);
      });
    } finally {
      for (const free of release) free();
    }
  }

  #request(req: IncomingMessage, res: ServerResponse): void {
    const { paths, version, logger } = this.#options;
    this.#begin();
    const controller = new AbortController();
    // The client went away before its answer (Ctrl-C, a crash): cancel what it asked for.
    res.on("close", () => {
      // An abort reason for the operation's own signal: nobody is left to be told.
      if (!res.writableFinished) controller.abort(daemonClientDisconnected());
      this.#end();
    });
    const operation = (req.url ?? "/").slice(1).split("?")[0] ?? "";
    const send = (line: ResponseLine) => {
      if (!res.writableEnded && !res.destroyed) res.end(`${JSON.stringify(line)}\n`);
    };
    const refused = refusal(req, operation, paths.config, version);
    if (refused) {
      res.statusCode = refused.status;
      send({ error: refused.error });
      return;
    }
    res.setHeader("content-type", "application/x-ndjson");
    const heartbeat = setInterval(() => {
      if (!res.writableEnded && !res.destroyed) res.write("\n");
    }, HEARTBEAT_MS);
    heartbeat.unref();
    res.on("close", () => clearInterval(heartbeat));
    readBody(req)
      .then((body) => this.#answer(operation, body, res, controller.signal))
      .then((result) => send({ result }))
      .catch((error: unknown) => {
        if (!isMcpBridgeError(error))
          logger.error(`Daemon request ${operation} failed`, { error: errorText(error) });
        send({
          error: { code: isMcpBridgeError(error) ? error.code : "INTERNAL", message: errorText(error) },
        });
      });
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const { paths, version, attach } = this.#options;
    const refused =
      refusal(req, "attach", paths.config, version, "GET") ??
      (req.headers.upgrade !== ATTACH_UPGRADE || !attach || this.#stopping
        ? { status: 404, error: { code: ErrorCode.DaemonUnavailable, message: "No attach here" } }
        : undefined);
    if (refused) {
      socket.end(
        `HTTP/1.1 ${refused.status} Refused\r\nConnection: close\r\n\r\n${JSON.stringify({ error: refused.error })}\n`,
      );
      return;
    }
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${ATTACH_UPGRADE}\r\nConnection: Upgrade\r\n\r\n`,
    );
    if (head.length > 0) socket.unshift(head);
    this.#begin();
    const mode = {
      codeMode: req.headers[ATTACH_MODE_HEADER] === "code",
      llmResults: req.headers[ATTACH_RESULTS_HEADER] === "llm",
    };
    const session = (attach as NonNullable<DaemonOptions["attach"]>)(socket, mode);
    this.#attached.set(socket, session);
    // A session that ends (its shim exited or the host closed it) cancels its own calls (the server's
    // transport closing aborts its handlers) and nothing else.
    void session.closed.then(async () => {
      this.#attached.delete(socket);
      await session.close().catch(() => undefined);
      socket.destroy();
      this.#end();
    });
  }
}
