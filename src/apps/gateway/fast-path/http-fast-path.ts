import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import {
  type AuthInfo,
  isJsonContentType,
  type ServerNotification,
  validateHostHeader,
  validateOriginHeader,
} from "@modelcontextprotocol/server";
import { acceptsJsonOnly } from "../faces/mcp/json-only-clients.js";
import type { GatewayInstance } from "../forwarding/served-tool-call.js";
import { identityOf } from "../identity/authenticate.js";
import { answerFastCall, type FastResponse, fastToolCallOf, servesFastCalls } from "./fast-call.js";
import {
  announcesModernCall,
  answerModernCall,
  type ModernCallEntry,
  modernToolCallOf,
} from "./modern-call.js";

type GatewayRequest = IncomingMessage & { auth?: AuthInfo };

/** What the HTTP fast path needs of the endpoint (see endpoint.ts). */
export interface HttpFastPathOptions {
  /** The open session `id` when `identity` owns it (its idle time restarts), else undefined. */
  readonly sessionServer: (id: string, identity: string) => GatewayInstance | undefined;
  /** The tools/call scope of a stateless 2026-07-28 request with this credential (no server instance). */
  readonly modernEntry: (auth: AuthInfo | undefined) => ModernCallEntry;
  /** Host and Origin names allowed on a loopback bind; undefined: not checked. */
  readonly allowedNames: string[] | undefined;
  readonly maxBodyBytes: number;
}

/** The SDK's keep-alive comment interval on a request's event stream (DEFAULT_SSE_KEEP_ALIVE_MS). */
const SSE_KEEP_ALIVE_MS = 15_000;

/**
 * `serve --http`'s fast path for a `tools/call` POST of an established 2025-11-25 session, or of a
 * stateless 2026-07-28 client (see modern-call.ts): node:http request in, the gateway's call path
 * (fast-call.ts, modern-call.ts), node:http response out, without the web `Request`/`Response` objects of the SDK's node adapter nor its Streamable HTTP transport. It answers
 * as they would (status, headers, event stream or, for a JSON-only client, one JSON body; see
 * json-only-clients.ts). Any request whose answer the SDK path would shape otherwise (a session this
 * credential does not own, an Accept or Content-Type the transport refuses, an unknown protocol
 * version header, a body without a length or over the limit, DNS-rebinding refusals, batches,
 * anything fastToolCallOf leaves to the SDK) goes to `fallback` with its body replayed byte for byte.
 */
export function httpFastPath(options: HttpFastPathOptions) {
  return async (
    req: GatewayRequest,
    res: ServerResponse,
    fallback: (req: GatewayRequest) => Promise<void>,
    /** The body, when the cluster layer already read it (a 2026-07-28 call, see cluster-entry.ts). */
    parsedBody?: unknown,
  ): Promise<void> => {
    if (req.method !== "POST" || !sendsPlainJson(req, options)) return fallback(req);
    if (announcesModernCall(req.headers)) return serveModern(req, res, fallback, options, parsedBody);
    if (parsedBody !== undefined) return fallback(req);
    const session = eligibleSession(req, options);
    if (!session) return fallback(req);
    const body = await bodyOf(req);
    if (body === undefined) {
      // The client went away mid-body: nothing is answered, as on the SDK path.
      res.destroy();
      return;
    }
    const call = fastToolCallOf(parsed(body));
    if (!call || !servesFastCalls(session.instance)) return fallback(replayed(req, body));
    const sse = !acceptsJsonOnly(req.headers.accept ?? null);
    if (sse) {
      res.writeHead(200, {
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "content-type": "text/event-stream",
        "mcp-session-id": session.id,
        "x-accel-buffering": "no",
      });
    }
    const gone = new AbortController();
    const keepAlive = sse ? setInterval(() => res.write(": keepalive\n\n"), SSE_KEEP_ALIVE_MS) : undefined;
    keepAlive?.unref();
    res.once("close", () => {
      clearInterval(keepAlive);
      if (!res.writableFinished) gone.abort();
    });
    // A notification tied to the call (an upstream log message) goes on its event stream before the
    // result; a JSON-only client gets the result alone, as from the SDK's JSON response mode.
    const notify = async (notification: ServerNotification) => {
      if (sse && !res.destroyed) res.write(sseEvent({ jsonrpc: "2.0", ...notification }));
    };
    const response = await answerFastCall(session.instance, call, notify, gone.signal);
    // A cancelled request is never answered; its stream stays open until the client leaves, as the SDK's.
    if (!response || res.destroyed) return;
    clearInterval(keepAlive);
    if (sse) res.end(sseEvent(response));
    else {
      const json = JSON.stringify(response);
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(json),
        "mcp-session-id": session.id,
      });
      res.end(json);
    }
  };
}

function sseEvent(message: FastResponse | (ServerNotification & { jsonrpc: "2.0" })): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * Whether a POST passes the checks the SDK path makes before its era is known: a loopback name in Host
 * and Origin, a JSON Content-Type, a known length within the limit (the SDK path answers the others,
 * 413 among them, itself), no transfer or content encoding.
 */
function sendsPlainJson(req: GatewayRequest, options: HttpFastPathOptions): boolean {
  const headers = req.headers;
  if (options.allowedNames && !namesAllowed(headers.host, headers.origin, options.allowedNames)) return false;
  if (!isJsonContentType(headers["content-type"])) return false;
  const length = Number(headers["content-length"]);
  if (!Number.isSafeInteger(length) || length > options.maxBodyBytes || length <= 0) return false;
  return headers["transfer-encoding"] === undefined && headers["content-encoding"] === undefined;
}

/**
 * Host and Origin pass the SDK's DNS-rebinding checks (each parses a URL): the pairs seen to pass are
 * kept (a client sends the same ones every time), at most MAX_ALLOWED_NAMES of them.
 */
function namesAllowed(host: string | undefined, origin: string | undefined, allowed: string[]): boolean {
  // Header values hold no line breaks: the key is unambiguous.
  const key = `${host ?? ""}\n${origin ?? ""}`;
  let allowedPairs = seenPairs.get(allowed);
  if (!allowedPairs) {
    allowedPairs = new Set();
    seenPairs.set(allowed, allowedPairs);
  }
  if (allowedPairs.has(key)) return true;
  if (!validateHostHeader(host, allowed).ok || !validateOriginHeader(origin, allowed).ok) return false;
  if (allowedPairs.size >= MAX_ALLOWED_NAMES) allowedPairs.clear();
  allowedPairs.add(key);
  return true;
}

const MAX_ALLOWED_NAMES = 64;
const seenPairs = new WeakMap<string[], Set<string>>();

/** The session a POST names, when every header check the SDK path makes would pass; else undefined. */
function eligibleSession(
  req: GatewayRequest,
  options: HttpFastPathOptions,
): { id: string; instance: GatewayInstance } | undefined {
  const headers = req.headers;
  const id = headers["mcp-session-id"];
  if (typeof id !== "string" || id === "") return undefined;
  const accept = headers.accept ?? "";
  const both = accept.includes("application/json") && accept.includes("text/event-stream");
  if (!both && !acceptsJsonOnly(accept)) return undefined;
  const instance = options.sessionServer(id, identityOf(req.auth));
  if (!instance) return undefined;
  // The SDK accepts any version it supports here; the negotiated one is what a client sends.
  const version = headers["mcp-protocol-version"];
  if (version !== undefined && version !== instance.server.getNegotiatedProtocolVersion()) return undefined;
  return { id, instance };
}

/**
 * A stateless 2026-07-28 `tools/call` (see modern-call.ts): its one JSON answer, as the SDK's
 * per-request transport gives it when nothing is sent before the result (whatever the Accept header:
 * that transport does not read it). A request the SDK would answer otherwise goes to `fallback`.
 */
async function serveModern(
  req: GatewayRequest,
  res: ServerResponse,
  fallback: (req: GatewayRequest) => Promise<void>,
  options: HttpFastPathOptions,
  parsedBody: unknown,
): Promise<void> {
  let message = parsedBody;
  let body: Buffer | undefined;
  if (message === undefined) {
    body = await bodyOf(req);
    if (body === undefined) {
      res.destroy();
      return;
    }
    message = parsed(body);
  }
  const call = modernToolCallOf(req.headers, message);
  if (!call) return fallback(body ? replayed(req, body) : req);
  const gone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) gone.abort();
  };
  res.once("close", onClose);
  const response = await answerModernCall(options.modernEntry(req.auth), call, gone.signal);
  if (!response || res.destroyed) return;
  const json = JSON.stringify(response);
  // In-band errors are HTTP 200, but for the one the spec ties to 400 (-32021, see modern-call.ts).
  const status = "error" in response && response.error.code === MISSING_CAPABILITY ? 400 : 200;
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  res.end(json);
}

/** ProtocolErrorCode.MissingRequiredClientCapability. */
const MISSING_CAPABILITY = -32021;

/**
 * The request's body, or undefined when the request was aborted before it ended. Read with stream
 * events rather than an async iterator (which costs an iterator and a promise per chunk).
 */
function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => {
      if (!req.complete) resolve(undefined);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    // Settles nothing once "end" has: a promise resolves once.
    req.once("close", () => resolve(undefined));
    req.once("error", () => resolve(undefined));
  });
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The request again, for the SDK path, with the body already read from it. */
function replayed(req: GatewayRequest, body: Buffer): GatewayRequest {
  return Object.assign(Readable.from([body]), {
    headers: req.headers,
    method: req.method,
    url: req.url,
    auth: req.auth,
    socket: req.socket,
  }) as unknown as GatewayRequest;
}
