/**
 * `fetch` for the benchmark's plain SDK clients. The SDK's Streamable HTTP transport passes one
 * signal, its own for its whole life, to every request; Node's fetch (undici) adds an abort listener
 * to it per request and removes it only once that request is garbage collected. Over thousands of
 * calls the listeners pile up faster than collection frees them: "MaxListenersExceededWarning: 1501
 * abort listeners added to [AbortSignal]" in `npm run bench`'s gateway section. Here each request gets
 * a signal of its own, linked to the transport's until its response body has ended, so the
 * transport's signal holds at most one listener per open response. (mcp-bridge's own transports do
 * not go through undici: see src/transport/keepalive-fetch.ts.)
 */
export function ownSignalFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const outer = init?.signal;
  if (!outer) return fetch(url, init);
  const inner = new AbortController();
  const abort = () => inner.abort(outer.reason);
  if (outer.aborted) abort();
  else outer.addEventListener("abort", abort, { once: true });
  const unlink = () => outer.removeEventListener("abort", abort);
  return fetch(url, { ...init, signal: inner.signal }).then(
    (response) => {
      if (!response.body) {
        unlink();
        return response;
      }
      // Linked while its body streams (an event stream may last the session): cut when it ends or
      // the request is aborted.
      inner.signal.addEventListener("abort", unlink, { once: true });
      const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: unlink }));
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    },
    (error: unknown) => {
      unlink();
      throw error;
    },
  );
}
