import {
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type LoggingMessageNotification,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { LOGGING_LEVELS, type ServerLogMessage } from "../../../bridge/features/logging.js";
import { plainText } from "../../../util/plain-text.js";

/**
 * Upstream log messages (`notifications/message`) as the gateway passes them to its clients. Which
 * client may get a message is decided where the message can be tied to one:
 *
 * - a message a Streamable HTTP upstream sent on a call's own response stream belongs to that call, and
 *   goes to the client that made it, on that call's stream (mcp-server.ts, through `CallOptions.onLog`);
 * - the one client of `serve --stdio` is the gateway's only client: every message is its business
 *   (stdio-server.ts, when its entry says so; never for the daemon's attached sessions, which share
 *   one bridge);
 * - any other message stays in the gateway's own log (the bridge's logger and `serverLog`).
 *
 * Each forwarded message says where it came from (`logger` is the upstream server's name, or
 * `<server>/<logger>`), passes its client's level, and a flood is cut: see `LogValve`.
 * The upstream's own level is left as configured (the server entry's `logLevel`): it is one setting
 * of a connection that every client shares, so no client's `logging/setLevel` changes it; each
 * client's level filters here.
 */

/** Messages a client may get at once, then `LOG_PER_SECOND` more each second; the rest are dropped. */
export const LOG_BURST = 100;
export const LOG_PER_SECOND = 20;

/** Longest string of a forwarded message's `data`. */
const MAX_STRING_CHARS = 16_000;
/** Deepest nesting of a forwarded message's `data` that is kept. */
const MAX_DEPTH = 32;

/** The lowest level a client wants; `none`: it asked for none (a 2026-07-28 request naming no level). */
export type LogThreshold = LoggingLevel | "none";

type LogParams = LoggingMessageNotification["params"];

const SEVERITY = new Map(LOGGING_LEVELS.map((level, index) => [level, index]));

export function passes(level: LoggingLevel, threshold: LogThreshold): boolean {
  if (threshold === "none") return false;
  return (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(threshold) ?? 0);
}

/**
 * A message as a client gets it: `logger` names the upstream server it came from, and every string of
 * `data` is plain text (many hosts print log messages on a terminal), capped in length.
 */
export function forwardedLog(message: ServerLogMessage): LogParams {
  const server = plainText(message.server, 200);
  const logger = message.logger === undefined ? server : `${server}/${plainText(message.logger, 200)}`;
  return { level: message.level, logger, data: plainDeep(message.data, 0) };
}

function plainDeep(value: unknown, depth: number): unknown {
  if (typeof value === "string") return plainText(value, MAX_STRING_CHARS);
  if (!value || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) return value.map((item) => plainDeep(item, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) result[plainText(key, 200)] = plainDeep(item, depth + 1);
  return result;
}

/**
 * The level one downstream client asked for (one per gateway server instance: a 2025-11-25 session,
 * a stdio channel). A 2025-era client sets it with `logging/setLevel` and gets every message until it
 * does (as the SDK's own servers do); a 2026-07-28 request names its level in its `_meta` envelope,
 * and one that names none asks for no messages.
 */
export class ClientLogLevel {
  #set: LoggingLevel | undefined;
  #modern: LogThreshold | undefined;

  set(level: LoggingLevel): void {
    this.#set = level;
  }

  /** The threshold of the messages tied to request `ctx` (and, for a modern client, its latest). */
  forRequest(ctx: ServerContext): LogThreshold {
    const envelope = ctx.mcpReq.envelope;
    if (envelope === undefined) return this.#set ?? "debug";
    const named = (envelope as Record<string, unknown>)[LOG_LEVEL_META_KEY];
    this.#modern =
      typeof named === "string" && SEVERITY.has(named as LoggingLevel) ? (named as LoggingLevel) : "none";
    return this.#modern;
  }

  /** The threshold of a message tied to no request: the level the client last asked for. */
  current(): LogThreshold {
    return this.#set ?? this.#modern ?? "debug";
  }
}

/**
 * Passes at most LOG_BURST messages at once and LOG_PER_SECOND after that (a token bucket); the
 * others are dropped and counted, and the client is told how many in one warning: before the next
 * message that passes, a second after the drops began, or at `close`. Nothing is queued, so a
 * flooding upstream costs the gateway no memory; what is sent is also bounded by the client's unread
 * backlog (served-tool-call.ts).
 */
export class LogValve {
  readonly #send: (params: LogParams) => void;
  #tokens = LOG_BURST;
  #refilled = performance.now();
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(send: (params: LogParams) => void) {
    this.#send = send;
  }

  offer(params: LogParams): void {
    const now = performance.now();
    this.#tokens = Math.min(LOG_BURST, this.#tokens + ((now - this.#refilled) / 1000) * LOG_PER_SECOND);
    this.#refilled = now;
    if (this.#tokens < 1) {
      this.#dropped++;
      this.#timer ??= setTimeout(() => this.#report(), 1000).unref();
      return;
    }
    this.#tokens--;
    this.#report();
    this.#send(params);
  }

  /** Tells the client of the drops not reported yet; the valve may still be used. */
  close(): void {
    this.#report();
  }

  #report(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#dropped === 0) return;
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.#send({
      level: "warning",
      logger: "mcp-bridge",
      data: `${dropped} upstream log message${dropped === 1 ? " was" : "s were"} dropped: more than ${LOG_PER_SECOND} a second`,
    });
  }
}
