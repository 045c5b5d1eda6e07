import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import type { FetchLike } from "@modelcontextprotocol/client";

/**
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
export function keepAliveFetch(fallback: FetchLike = fetch): FetchLike {
  return (url, init) => {
    const target = typeof url === "string" ? new URL(url) : url;
    const body = init?.body;
    const module = target.protocol === "http:" ? http : target.protocol === "https:" ? https : undefined;
    if (!module || init?.redirect !== "manual" || (body != null && typeof body !== "string")) {
      return fallback(url, init);
    }
    return send(module, target, init, body ?? undefined);
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
    request.once("error", (error) => {
      // As fetch: an abort rejects with the signal's reason, any other failure is "fetch failed".
      reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error }));
    });
    request.once("response", (response) => {
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
        headers.delete("content-encoding");
        headers.delete("content-length");
      }
      try {
        resolve(
          new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
            status,
            statusText: response.statusMessage,
            headers,
          }),
        );
      } catch (error) {
        // A status fetch cannot represent (outside 200-599): a failed fetch, as undici reports it.
        response.destroy();
        reject(new TypeError("fetch failed", { cause: error }));
      }
    });
    request.end(body);
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
