import type { FetchLike } from "@modelcontextprotocol/client";
import { responseOverLimit } from "../errors/connection-errors.js";
import { bodyKind, SettledResponse } from "../sdk/settled-response.js";
import { IdTable } from "../util/id-table.js";
import { linkAbort } from "../util/linked-abort.js";

/**
 * A `fetch` for the SDK's HTTP transports that bounds what a server can make the host hold and keep:
 *
 * - Decoded size. fetch decompresses transparently, so a 1 MB gzip body can expand to gigabytes; a JSON
 *   response or one SSE event over `maxResponseBytes` is cut off while it streams (the rest is never
 *   decompressed) and the request it answered fails with a JSON-RPC error in RESULT_TOO_LARGE range.
 * - Sockets. On a request timeout or a caller's abort, the SDK (on the 2025 protocol) POSTs
 *   `notifications/cancelled` but leaves that request's response stream open; a server that stalled the
 *   stream would keep one socket per timed-out call. Seeing the cancellation go out, this aborts the
 *   request's fetch, which closes its stream and socket.
 */
export interface BoundedFetchOptions {
  readonly maxResponseBytes: number;
  /** JSON-RPC error code of the error that replaces an oversized response. */
  readonly tooLargeCode: number;
}

/** A JSON response or one SSE event may hold this much once decoded. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

type RequestId = string | number;

export function boundedFetch(inner: FetchLike, options: BoundedFetchOptions): FetchLike {
  // One insertion and deletion per request: an IdTable, not a Map (see util/id-table.ts).
  const inFlight: Map<RequestId, AbortController> = new IdTable();
  return async (url, init) => {
    const { requests, cancelled } = inspectBody(init?.body);
    for (const id of cancelled) {
      inFlight.get(id)?.abort();
      inFlight.delete(id);
    }
    const controller = new AbortController();
    // The SDK's signal lives as long as the session and is shared by every concurrent request: one
    // listener on it fans out to the requests' controllers (see linked-abort.ts).
    const unlink = linkAbort(init?.signal ?? undefined, controller);
    for (const id of requests) inFlight.set(id, controller);
    const release = () => {
      unlink();
      for (const id of requests) if (inFlight.get(id) === controller) inFlight.delete(id);
    };
    let response: Response;
    try {
      response = await inner(url, { ...init, signal: controller.signal });
    } catch (error) {
      release();
      throw error;
    }
    // A settled body arrived whole within the bound (its stream exists only for a reader that asks).
    if (response instanceof SettledResponse || !response.body) {
      release();
      return response;
    }
    const kind = bodyKind(response.headers.get("content-type"));
    const id = requests.length === 1 ? requests[0] : undefined;
    const tooLarge = (bytes: string) =>
      id === undefined
        ? undefined
        : JSON.stringify({
            jsonrpc: "2.0",
            id,
            error: {
              code: options.tooLargeCode,
              message: `Response of more than ${bytes} bytes once decoded; it was cut off. Ask the tool for less output.`,
            },
          });
    const limit = options.maxResponseBytes;
    const body =
      kind === "json"
        ? await readCapped(response.body, limit, controller, release, () => tooLarge(`${limit}`))
        : capStream(response.body, limit, kind === "sse", controller, release, () => {
            const error = tooLarge(`${limit}`);
            return error === undefined ? undefined : `\n\nevent: message\ndata: ${error}\n\n`;
          });
    const headers = new Headers(response.headers);
    headers.delete("content-encoding");
    headers.delete("content-length");
    return new Response(body as BodyInit, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/** Request ids a POST body carries, and the ids of requests it cancels. */
function inspectBody(body: unknown): { requests: RequestId[]; cancelled: RequestId[] } {
  const requests: RequestId[] = [];
  const cancelled: RequestId[] = [];
  if (typeof body !== "string" || (!body.startsWith("{") && !body.startsWith("[")))
    return { requests, cancelled };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { requests, cancelled };
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!message || typeof message !== "object") continue;
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== "string") continue;
    if (isId(id)) requests.push(id);
    const target = (params as { requestId?: unknown } | undefined)?.requestId;
    if (method === "notifications/cancelled" && isId(target)) cancelled.push(target);
  }
  return { requests, cancelled };
}

function isId(value: unknown): value is RequestId {
  return typeof value === "string" || typeof value === "number";
}

/**
 * Reads a whole JSON body, at most `limit` bytes; past that, stops reading (and decompressing) and
 * returns the replacement, or fails when there is none.
 */
async function readCapped(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  controller: AbortController,
  release: () => void,
  replacement: () => string | undefined,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks, total);
      total += value.length;
      if (total > limit) {
        controller.abort();
        void reader.cancel().catch(() => {});
        const text = replacement();
        if (text === undefined) throw responseOverLimit({ limit });
        return Buffer.from(text);
      }
      chunks.push(value);
    }
  } finally {
    release();
  }
}

/**
 * Passes a stream through, counting bytes per SSE event (or in all, for other types). Past `limit`, or
 * once the request was cancelled, the stream ends: with the replacement when there is one.
 */
function capStream(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  sse: boolean,
  controller: AbortController,
  release: () => void,
  replacement: () => string | undefined,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let count = 0;
  let lineBytes = 0;
  let lastByte = 0;
  /** Counts a chunk; returns where in it the current SSE event began (0: in an earlier chunk). */
  const measure = (chunk: Uint8Array): number => {
    if (!sse) {
      count += chunk.length;
      return 0;
    }
    // An event ends at a blank line ("\n\n" or "\r\n\r\n"); count only the bytes of the current event.
    let eventStart = 0;
    for (let i = 0; i < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, i);
      const end = newline === -1 ? chunk.length : newline;
      count += end - i;
      if (end > i) {
        lineBytes += end - i;
        lastByte = chunk[end - 1] as number;
      }
      if (newline === -1) break;
      if (lineBytes === 0 || (lineBytes === 1 && lastByte === 0x0d)) {
        count = 0;
        eventStart = newline + 1;
      }
      lineBytes = 0;
      i = newline + 1;
    }
    return eventStart;
  };
  return new ReadableStream<Uint8Array>({
    async pull(output) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        release();
        // Our own abort after a cancellation: the stream just ends.
        if (controller.signal.aborted) output.close();
        else output.error(error);
        return;
      }
      if (result.done) {
        release();
        output.close();
        return;
      }
      const eventStart = measure(result.value);
      if (count > limit) {
        controller.abort();
        void reader.cancel().catch(() => {});
        release();
        // The events that ended before the oversized one still count.
        if (eventStart > 0) output.enqueue(result.value.subarray(0, eventStart));
        const text = replacement();
        if (text !== undefined) output.enqueue(Buffer.from(text));
        // A document (not an event stream) cut short must not pass for a whole one.
        if (text === undefined && !sse) output.error(responseOverLimit({ limit }));
        else output.close();
        return;
      }
      output.enqueue(result.value);
    },
    cancel(reason) {
      release();
      controller.abort();
      return reader.cancel(reason).catch(() => {});
    },
  });
}
