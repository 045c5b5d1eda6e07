import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Bridge } from "../bridge/types.js";
import { ErrorCode, isMcpBridgeError, McpBridgeError } from "../errors.js";
import { parseKeyValuesFor } from "../util/key-values.js";
import type { Logger } from "../util/logger.js";
import { errorText } from "../util/text-of.js";
import {
  callDocument,
  owningServers,
  promptDocument,
  promptsDocument,
  readDocument,
  resourcesDocument,
  statusDocument,
  toolsDocument,
} from "./documents.js";
import type { DaemonPaths } from "./paths.js";
import {
  type CallRequest,
  type DaemonInfo,
  type Envelope,
  HEARTBEAT_MS,
  type PromptRequest,
  type ReadRequest,
  type ResponseLine,
  type ServerFilterRequest,
  type StatusRequest,
  type ToolsRequest,
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
        reject(new McpBridgeError(ErrorCode.Usage, "The request to the daemon is too large"));
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
        reject(new McpBridgeError(ErrorCode.Usage, "The request to the daemon is not JSON"));
      }
    });
    req.on("error", reject);
  });
}

/**
 * Serves a running bridge on the daemon's Unix socket (see protocol.ts). The socket is created 0600
 * inside the 0700 runtime folder; a client that disconnects mid-request cancels its operation and
 * nothing else; after `idleMs` without a request the daemon closes the bridge and stops.
 */
export async function serveDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { bridge, paths, logger } = options;
  const startedAt = Date.now();
  let inflight = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });

  const armIdle = () => {
    clearTimeout(idleTimer);
    // An infinite idle time (never stop) must not reach setTimeout, which would fire at once.
    if (inflight === 0 && !stopping && Number.isFinite(options.idleMs))
      idleTimer = setTimeout(() => void stop(`idle for ${options.idleMs} ms`), options.idleMs);
  };

  const info = (): DaemonInfo & { servers: unknown } => ({
    pid: process.pid,
    // Requests being answered besides this one.
    activeRequests: inflight - 1,
    socket: paths.socket,
    config: paths.config,
    startedAt: new Date(startedAt).toISOString(),
    uptimeMs: Date.now() - startedAt,
    idleMs: options.idleMs,
    version: options.version,
    servers: (statusDocument(bridge).document as { servers: unknown }).servers,
  });

  async function answer(
    operation: string,
    body: unknown,
    res: ServerResponse,
    signal: AbortSignal,
  ): Promise<Envelope> {
    if (operation === "daemon") return { document: info(), exitCode: 0, warnings: [] };
    if (operation === "shutdown") {
      setImmediate(() => void stop("asked to stop"));
      return { document: { stopping: true, pid: process.pid }, exitCode: 0, warnings: [] };
    }
    // Servers still starting (right after the daemon started, or after a reload) are waited for.
    await bridge.ready();
    switch (operation) {
      case "status":
        return statusDocument(bridge, body as StatusRequest);
      case "tools":
        return toolsDocument(bridge, body as ToolsRequest);
      case "resources":
        return resourcesDocument(bridge, body as ServerFilterRequest);
      case "read":
        return readDocument(bridge, body as ReadRequest, signal);
      case "prompts":
        return promptsDocument(bridge, body as ServerFilterRequest);
      case "prompt":
        return promptDocument(bridge, body as PromptRequest, signal);
      case "call": {
        const request = body as CallRequest;
        const owners = owningServers(
          request.name,
          bridge.config.servers.map((s) => s.name),
          bridge.config.settings.toolNameFormat,
        );
        return callDocument(
          bridge,
          {
            name: request.name,
            args: (schema) => ({ ...request.args, ...parseKeyValuesFor(request.pairs, schema) }),
            ...(request.timeout === undefined ? {} : { timeout: request.timeout }),
            ...(request.maxResultChars === undefined ? {} : { maxResultChars: request.maxResultChars }),
            signal,
            ...(request.progress
              ? {
                  onProgress: (progress) => {
                    if (!res.writableEnded && !res.destroyed)
                      res.write(`${JSON.stringify({ progress } satisfies ResponseLine)}\n`);
                  },
                }
              : {}),
          },
          owners,
        );
      }
      default:
        throw new McpBridgeError(ErrorCode.Usage, `The daemon has no operation ${JSON.stringify(operation)}`);
    }
  }

  const server = createServer((req, res) => {
    inflight++;
    clearTimeout(idleTimer);
    const controller = new AbortController();
    // The client went away before its answer (Ctrl-C, a crash): cancel what it asked for.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(new Error("the client disconnected"));
      inflight--;
      armIdle();
    });
    const operation = (req.url ?? "/").slice(1).split("?")[0] ?? "";
    const send = (line: ResponseLine) => {
      if (!res.writableEnded && !res.destroyed) res.end(`${JSON.stringify(line)}\n`);
    };
    const version = req.headers["mcp-bridge-version"];
    // `daemon` and `shutdown` answer any version, so an old daemon can be seen and stopped.
    const managing = operation === "daemon" || operation === "shutdown";
    const config = req.headers["mcp-bridge-config"];
    if (!managing && typeof config === "string" && safeDecode(config) !== paths.config) {
      res.statusCode = 409;
      send({ error: { code: ErrorCode.DaemonUnavailable, message: `This daemon serves ${paths.config}` } });
      return;
    }
    if (!managing && typeof version === "string" && version !== options.version) {
      res.statusCode = 409;
      send({
        error: {
          code: ErrorCode.DaemonUnavailable,
          message: `This daemon is mcp-bridge ${options.version}, the client ${version}: restart it with \`mcp-bridge daemon stop\` and \`daemon start\`.`,
        },
      });
      return;
    }
    if (req.method !== "POST") {
      res.statusCode = 405;
      send({ error: { code: ErrorCode.Usage, message: "Only POST" } });
      return;
    }
    res.setHeader("content-type", "application/x-ndjson");
    const heartbeat = setInterval(() => {
      if (!res.writableEnded && !res.destroyed) res.write("\n");
    }, HEARTBEAT_MS);
    heartbeat.unref();
    res.on("close", () => clearInterval(heartbeat));
    readBody(req)
      .then((body) => answer(operation, body, res, controller.signal))
      .then((result) => send({ result }))
      .catch((error: unknown) => {
        if (!isMcpBridgeError(error))
          logger.error(`Daemon request ${operation} failed`, { error: errorText(error) });
        send({
          error: { code: isMcpBridgeError(error) ? error.code : "INTERNAL", message: errorText(error) },
        });
      });
  });
  // Keep-alive would hold a finished CLI's connection open; every request is one connection.
  server.keepAliveTimeout = 0;

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
  armIdle();

  function stop(reason: string): Promise<void> {
    if (stopping) return stopping;
    clearTimeout(idleTimer);
    logger.info(`Daemon stopping: ${reason}`);
    stopping = (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      try {
        unlinkSync(paths.socket);
      } catch {
        // already gone
      }
      await bridge.close();
      resolveStopped();
    })();
    return stopping;
  }

  return { stopped, stop };
}
