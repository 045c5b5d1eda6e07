import type { FetchLike } from "@modelcontextprotocol/client";
import { createParser } from "eventsource-parser";
import { SettledResponse } from "../sdk/settled-response.js";
import { relatedLogCallers as callers, type RelatedLogSink } from "./related-logs-scope.js";

/**
 * The log messages a Streamable HTTP server sent with one tools/call, told to whoever made that call.
 *
 * A server sends what belongs to a request (its log messages, its progress) on that request's own
 * response stream: the POST's SSE body. The SDK's client hands every message to one handler per
 * method and does not say which stream it came on, so a `notifications/message` handler cannot tell
 * whose call caused it. This fetch can: it sees the POST (whose tools/call it carries) and its body.
 * Who made the call is the caller's async context at the time the request goes out (the SDK sends a
 * request in the turn of its caller): a `tools/call` POST sent inside `withRelatedLogs(sink, …)` has
 * every `notifications/message` of its response stream told to `sink`, before the SDK reads it (so
 * before the call's result). Nothing else is: not the messages of the server's standalone stream, of
 * another request, of a stdio or legacy SSE server (nothing relates those), and not the requests a
 * call happens to trigger (a connect, a reconnect). The SDK still gets every message as before.
 */

const LOG_METHOD = "notifications/message";

/** Wraps the fetch of a Streamable HTTP transport (see above); costs nothing outside `withRelatedLogs`. */
export function relatedLogsFetch(inner: FetchLike): FetchLike {
  return async (url, init) => {
    const sink = callers.getStore();
    if (!sink || !isToolCall(init?.body)) return inner(url, init);
    const response = await inner(url, init);
    if (response instanceof SettledResponse) {
      // A body that arrived whole: its messages are already parsed, in the order the SDK delivers them.
      if (!(await response.text()).includes(LOG_METHOD)) return response;
      const messages = await response.json();
      if (Array.isArray(messages)) for (const message of messages) tell(sink, message);
      return response;
    }
    const essence = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (!response.body || essence !== "text/event-stream") return response;
    return new Response(observed(response.body, sink), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Whether a POST body is one tools/call request (a batch or anything else is never attributed). The
 * SDK writes `method` first (`{...request, jsonrpc, id}`); the arguments, which may be large, are not
 * parsed to find out. A body in another order is not attributed: its messages stay in the log.
 */
function isToolCall(body: unknown): boolean {
  return typeof body === "string" && body.startsWith(`{"method":"tools/call",`);
}

function tell(sink: RelatedLogSink, message: unknown): void {
  if (!message || typeof message !== "object") return;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== LOG_METHOD || id !== undefined || !params || typeof params !== "object") return;
  try {
    sink(params as Record<string, unknown>);
  } catch {
    // The caller's handler failing must not break the server's stream (the SDK still gets the message).
  }
}

/**
 * The same bytes, read through an SSE parser on the way: each log message is told when the chunk
 * holding its end passes, before the chunk is handed on. Only events the SDK would deliver count
 * (type "message" or none, with data).
 */
function observed(body: ReadableStream<Uint8Array>, sink: RelatedLogSink): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(event) {
      if ((event.event && event.event !== "message") || !event.data.includes(LOG_METHOD)) return;
      try {
        tell(sink, JSON.parse(event.data));
      } catch {
        // Not JSON: the SDK reports it; nothing to tell.
      }
    },
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    }),
  );
}
