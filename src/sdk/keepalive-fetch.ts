import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import type { FetchLike } from "@modelcontextprotocol/client";
import {
  bodyKind,
  type SettledBody,
  SettledResponse,
  settleableRequest,
  settleBody,
} from "./settled-response.js";
import { sdkShimEnabled } from "./shims.js";

export interface KeepAliveFetchOptions {
  /**
   * A 200 JSON or SSE response of at most this many (decoded) bytes that has fully arrived when its
   * first bytes have been read is handed over whole (see settled-response.ts); 0 streams every body.
   */
  readonly settleBytes?: number;
}

/**
 * Replaces undici (Node's global fetch) for the Streamable HTTP transport's own requests, relying on
 * what that transport asks of fetch (`redirect: "manual"`, a string body) and reads back (see
 * settled-response.ts). Checked against @modelcontextprotocol/client 2.4.0 and Node 20, 22 and 24.
 * Bench (`node dist/bench/profile-calls.js bridge http 3000 N`, client CPU per warm call, with
 * MCP_BRIDGE_SDK_SHIMS naming every shim but this one; 2 passes on the shared 2-core machine): 1 in
 * flight 259 / 211 us with it, 964 / 685 us without; 8 in flight 202 us with, 634 us without. Kept.
 *
 * Detection: each request is checked for the shape served here and otherwise goes to the fallback
 * fetch; with the shim off (see shims.ts) every request does.
 *
 * A `fetch` for the requests of the Streamable HTTP transport itself, over node:http with a keep-alive
 * agent. Node's global fetch (undici) spends most of a warm MCP call's client CPU on its own machinery
 * (request cloning, fetch controller, body mixins), several times what the exchange costs over
 * node:http; the response is still a WHATWG Response whose body streams (SSE events arrive as the
 * server writes them) and whose request an abort signal ends.
 *
 * It takes only what it can answer exactly as fetch would: http(s) URLs, a string body or none, and
 * `redirect: "manual"` (the SDK asks for that and follows redirects itself, within the origin). Any
 * other request (OAuth discovery and token requests with form bodies, default redirect following)
 * goes to `fallback`.
 */
export function keepAliveFetch(fallback: FetchLike = fetch, options: KeepAliveFetchOptions = {}): FetchLike {
  if (!sdkShimEnabled("keepalive-fetch")) return fallback;
  const settleBytes = options.settleBytes ?? 0;
  return (url, init) => {
    const target = typeof url === "string" ? new URL(url) : url;
    const body = init?.body;
    const module = target.protocol === "http:" ? http : target.protocol === "https:" ? https : undefined;
    if (!module || init?.redirect !== "manual" || (body != null && typeof body !== "string")) {
      return fallback(url, init);
    }
    return send(module, target, init, body ?? undefined, settleBytes);
  };
}

const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

/** Status codes whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function send(
  module: typeof http | typeof https,
  url: URL,
  init: RequestInit,
  body: string | undefined,
  settleBytes: number,
): Promise<Response> {
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const method = (init.method ?? "GET").toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const request = module.request(url, {
      method,
      headers,
      agent: module === http ? agents.http : agents.https,
      ...(signal ? { signal } : {}),
    });
    let responded = false;
    request.once("error", (error) => {
      // Once the response has begun, a failure ends its body instead (as with fetch).
      if (responded) return;
      // As fetch: an abort rejects with the signal's reason, any other failure is "fetch failed".
      reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
    });
    request.once("response", (response) => {
      responded = true;
      const headers = new Headers();
      const raw = response.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
      const status = response.statusCode ?? 0;
      if ((NULL_BODY.has(status) || method === "HEAD") && status >= 200 && status <= 599) {
        response.resume();
        resolve(new Response(null, { status, statusText: response.statusMessage, headers }));
        return;
      }
      // Decompressed as fetch does: later bounds count the decoded bytes.
      const decoded = decoder(headers.get("content-encoding"));
      let stream: Readable = response;
      if (decoded) {
        stream = response.pipe(decoded);
        response.once("error", (error) => decoded.destroy(error));
        // A body cut off without an error event (an aborted request) must end the decoded one too.
        response.once("close", () => {
          if (!response.complete) decoded.destroy(new TypeError("terminated"));
        });
        headers.delete("content-encoding");
        headers.delete("content-length");
      }
      const responseInit = { status, statusText: response.statusMessage, headers };
      const kind =
        status === 200 && settleableRequest(body) ? bodyKind(headers.get("content-type")) : undefined;
      const streamed = (prefix: Buffer[]) => {
        try {
          resolve(new Response(webStream(stream, prefix), responseInit));
        } catch (error) {
          // A status fetch cannot represent (outside 200-599): a failed fetch, as undici reports it.
          response.destroy();
          reject(new TypeError("fetch failed", { cause: error }));
        }
      };
      if (kind === undefined || settleBytes <= 0) streamed([]);
      else
        holdBody(stream, kind, settleBytes, (settled, prefix) => {
          if (!settled) return streamed(prefix);
          headers.set("content-type", "application/json");
          resolve(new SettledResponse(settled, responseInit));
        });
    });
    request.end(body);
  });
}

/**
 * Reads a body while it keeps arriving in the same turn of the event loop. When it has ended by then
 * (and is small), `done` gets it settled; when more is still to come, when it is too big, when it
 * cannot be settled or when the stream fails, `done` gets what was read so far and the stream carries
 * on from there, so nothing a streaming reader would see is lost or delayed by more than that turn.
 */
function holdBody(
  stream: Readable,
  kind: "sse" | "json",
  limit: number,
  done: (settled: SettledBody | undefined, prefix: Buffer[]) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let check: NodeJS.Immediate | undefined;
  const finish = (settled: SettledBody | undefined) => {
    stream.off("data", onData).off("end", onEnd).off("error", onFailure).off("close", onFailure);
    if (check) clearImmediate(check);
    if (!settled) stream.pause();
    done(settled, chunks);
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) finish(undefined);
    else check ??= setImmediate(() => finish(undefined));
  };
  const onEnd = () => {
    const settled = settleBody(
      kind,
      chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
    );
    // Not settled after all: streamed, the reader gets the bytes and then the end.
    finish(settled);
  };
  const onFailure = () => finish(undefined);
  stream.on("data", onData).once("end", onEnd).once("error", onFailure).once("close", onFailure);
}

/**
 * The body as a web stream, after `prefix` (bytes already read from it): the one stream a response
 * needs, cheaper than `Readable.toWeb`'s adapter. Backpressure pauses the socket; cancelling destroys it.
 */
function webStream(stream: Readable, prefix: Buffer[]): ReadableStream<Uint8Array> {
  const ended = stream.readableEnded;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of prefix) controller.enqueue(chunk);
      if (ended) {
        controller.close();
        return;
      }
      let open = true;
      const close = (error?: unknown) => {
        if (!open) return;
        open = false;
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      stream.on("data", (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) stream.pause();
      });
      stream.once("end", () => close());
      stream.once("error", (error) => close(error));
      // A body cut off without an error (the request was aborted) fails as fetch's does.
      stream.once("close", () => close(stream.readableEnded ? undefined : new TypeError("terminated")));
      if (stream.errored) close(stream.errored);
      else if (stream.destroyed) close(new TypeError("terminated"));
      else stream.resume();
    },
    pull() {
      stream.resume();
    },
    cancel() {
      stream.destroy();
    },
  });
}

function decoder(encoding: string | null): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
