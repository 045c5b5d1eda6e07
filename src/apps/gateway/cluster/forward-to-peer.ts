import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import {
  forwardClientGone,
  forwardingCancelled,
  peerConnectTimeout,
} from "../../../errors/gateway-errors.js";
import { httpAnswers } from "../wire-errors.js";
import { peerSignatureHeaders, type SignedRequest } from "./peer-signature.js";

/** A request as received, its body already read (bounded by the gateway's body limit). */
export type PeerRequest = SignedRequest;

export interface PeerForwarding {
  /** This replica's id, sent (signed) with the request. */
  readonly replicaId: string;
  readonly secret: Uint8Array;
  /** How long connecting to the peer may take, in ms. Default 2 000. */
  readonly connectTimeoutMs?: number;
  /**
   * Longest answer read from the peer that is not an event stream, in bytes; past it the client's
   * connection is cut. Default 64 MiB. (An event stream is the client's own, as long as it listens.)
   */
  readonly maxResponseBytes?: number;
  /** Ends the forwarded request (the client went away, the gateway closes). */
  readonly signal?: AbortSignal;
}

/**
 * `answered`: the peer's answer was passed on (or the client's connection cut midway); `unreachable`:
 * nothing was written to the client, the caller may answer otherwise (the peer is down).
 */
export type PeerOutcome = { readonly answered: true } | { readonly answered: false; readonly error: Error };

const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** What the owner needs to answer as it would have: the client's own credential and session among them. */
const FORWARDED_REQUEST_HEADERS = [
  "accept",
  "content-type",
  "authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  // 2026-07-28 requests must repeat their method and name in headers (a retry of a parked call).
  "mcp-method",
  "mcp-name",
  "last-event-id",
  "origin",
  "user-agent",
  "traceparent",
  "tracestate",
] as const;

/** Hop-by-hop headers and the length (the answer is re-framed): never copied back to the client. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
]);

// Connections to peers are reused: a forwarded call costs no TCP handshake.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * Forwards a request to the peer replica at `peerUrl` (its advertised MCP URL; the request's own path
 * is kept) and streams the peer's answer, JSON or an event stream, back to `res`. Signed with the
 * cluster secret (see peer-signature.ts); the client's Authorization goes along and the peer checks it
 * again. Bounded: connecting by `connectTimeoutMs`, a non-stream answer by `maxResponseBytes`, the
 * whole exchange by `res` (the client hanging up ends it) and `signal`.
 */
export function forwardToPeer(
  peerUrl: string,
  request: PeerRequest,
  res: ServerResponse,
  forwarding: PeerForwarding,
): Promise<PeerOutcome> {
  const target = new URL(request.path, peerUrl);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  Object.assign(headers, peerSignatureHeaders(forwarding.secret, request, forwarding.replicaId));
  if (request.body) headers["content-length"] = String(request.body.byteLength);
  const secure = target.protocol === "https:";
  return new Promise<PeerOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: PeerOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      forwarding.signal?.removeEventListener("abort", onAbort);
      res.off("close", onClientClose);
      resolve(outcome);
    };
    const outgoing = (secure ? httpsRequest : httpRequest)(target, {
      method: request.method,
      headers,
      agent: secure ? agents.https : agents.http,
    });
    const connectTimer = setTimeout(
      () => outgoing.destroy(peerConnectTimeout({ origin: target.origin })),
      forwarding.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    );
    connectTimer.unref();
    // Once connected, the request may have reached the peer and run there: it is never run again here.
    let connected = false;
    const onConnected = () => {
      connected = true;
      clearTimeout(connectTimer);
    };
    outgoing.on("socket", (socket) => {
      // A reused keep-alive socket is connected already.
      if (!socket.connecting) onConnected();
      else socket.once("connect", onConnected);
    });
    const onAbort = () => outgoing.destroy(forwardingCancelled());
    const onClientClose = () => {
      if (!res.writableFinished) outgoing.destroy(forwardClientGone());
    };
    forwarding.signal?.addEventListener("abort", onAbort, { once: true });
    if (forwarding.signal?.aborted) onAbort();
    res.once("close", onClientClose);
    outgoing.on("error", (error) => {
      // Not connected: the peer never saw the request, the caller may still answer it.
      if (!connected && !res.headersSent) return settle({ answered: false, error });
      if (!res.headersSent) {
        const failed = httpAnswers.peerFailed();
        res.writeHead(failed.status, { "content-type": "application/json" });
        res.end(JSON.stringify(failed.body));
      } else res.destroy();
      settle({ answered: true });
    });
    outgoing.on("response", (incoming) => {
      clearTimeout(connectTimer);
      res.writeHead(incoming.statusCode ?? 502, answerHeaders(incoming.headers));
      // An event stream is flushed as it comes; other answers are capped.
      const stream = String(incoming.headers["content-type"] ?? "").startsWith("text/event-stream");
      if (stream) res.flushHeaders();
      const cap = forwarding.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      let received = 0;
      incoming.on("data", (chunk: Buffer) => {
        received += chunk.byteLength;
        if (!stream && received > cap) {
          incoming.destroy();
          res.destroy();
          return settle({ answered: true });
        }
        if (!res.write(chunk)) {
          incoming.pause();
          res.once("drain", () => incoming.resume());
        }
      });
      incoming.on("end", () => {
        res.end();
        settle({ answered: true });
      });
      incoming.on("error", () => {
        res.destroy();
        settle({ answered: true });
      });
      incoming.on("aborted", () => {
        res.destroy();
        settle({ answered: true });
      });
    });
    outgoing.end(request.body === undefined ? undefined : Buffer.from(request.body));
  });
}

function answerHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const copied: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    copied[name] = value;
  }
  return copied;
}
