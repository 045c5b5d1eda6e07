import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Who made the tools/call a Streamable HTTP request carries (see related-notifications.ts): apart from
 * the fetch that reads the response streams, so a bridge with only stdio servers loads neither it nor
 * what it loads (web `Response` and with it Node's fetch implementation, about 1 MiB of heap).
 */

/** A `notifications/message`'s params as the server sent them (not yet checked: see logging.ts). */
export type RelatedLogSink = (params: Record<string, unknown>) => void;

export const relatedLogCallers = new AsyncLocalStorage<RelatedLogSink>();

/** Runs `fn`; the log messages on the response streams of the tools/call requests it sends go to `sink`. */
export function withRelatedLogs<T>(sink: RelatedLogSink, fn: () => T): T {
  return relatedLogCallers.run(sink, fn);
}
