import type { Readable, Writable } from "node:stream";
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type RequestId,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { LineFramer, type OversizedLine } from "../../../transport/framing.js";
import { TurnWrites } from "../../../util/turn-writes.js";
import {
  MESSAGE_TOO_LARGE_RPC_CODE,
  oversizedLineMessage,
  PARSE_ERROR_RPC_CODE,
  stdioChannel,
  UNDELIVERED_RPC_CODE,
  undeliveredMessage,
  unparsableLineMessage,
} from "../wire-errors.js";
import type { ResolvedStdioGatewayOptions } from "./gateway-options.js";

/** See StdioGatewayOptions: already defaulted and checked by resolveStdioGatewayOptions. */
export type StdioWireOptions = Pick<
  ResolvedStdioGatewayOptions,
  "maxMessageBytes" | "maxUnreadBytes" | "onProblem"
>;

/**
 * The gateway's stdio channel, in place of the SDK's StdioServerTransport, which on a line over 10 MiB
 * stops reading stdin for good (so it no longer notices stdin's end and the gateway never exits) and
 * which buffers without limit what a host that does not read stdout is sent.
 *
 * - Lines are framed by LineFramer: a line over `maxMessageBytes` is dropped as it streams (never held),
 *   answered with a JSON-RPC error when it was a request, and reading goes on.
 * - Any end of the channel (stdin's end, close or error; stdout's error, e.g. EPIPE) closes it, once;
 *   `closed` resolves then, so the gateway can stop and take its upstream servers down.
 * - Past `maxUnreadBytes` waiting in stdout, notifications are dropped, responses replaced by a short
 *   error and requests to the client fail; past twice that, the client is not reading at all and the
 *   channel is closed.
 * - `delivered(id)` resolves once the response to request `id` was handed to the OS (or the channel
 *   closed): a call holds its limiter slot until then.
 */
export class GatewayStdioWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Sees every parsed line before the SDK does; true: it answered the message itself (see
   * fast-path/stdio-fast-path.ts), which then never reaches the SDK.
   */
  intercept?: (message: unknown) => boolean;

  readonly closed: Promise<void>;
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  /** Responses of one turn leave in one write (see turn-writes.ts). */
  readonly #writes: TurnWrites;
  readonly #framer: LineFramer;
  readonly #maxUnread: number;
  readonly #maxMessage: number;
  readonly #onProblem: (message: string) => void;
  readonly #waiting = new Map<RequestId, (() => void)[]>();
  #isClosed = false;
  #markClosed: () => void = () => {};
  #dropped = 0;

  constructor(stdin: Readable, stdout: Writable, options: StdioWireOptions) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#writes = new TurnWrites(stdout);
    this.#maxMessage = options.maxMessageBytes;
    this.#maxUnread = options.maxUnreadBytes;
    this.#onProblem = options.onProblem;
    this.closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
    // Requests are never shortened: a line is taken whole up to the limit, dropped past it.
    this.#framer = new LineFramer({
      onLine: (line) => this.#onLine(line),
      onOversized: (info) => this.#onOversized(info),
      maxLineBytes: this.#maxMessage,
      capStringsAfterBytes: this.#maxMessage,
      maxKeptBytes: this.#maxMessage,
    });
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("end", this.#onEnd);
    this.#stdin.on("close", this.#onEnd);
    this.#stdin.on("error", this.#onEnd);
    this.#stdout.on("error", this.#onEnd);
    this.#stdout.on("close", this.#onEnd);
    if (this.#stdin.readableEnded || this.#stdin.destroyed) setImmediate(this.#onEnd);
  }

  /** Resolves once the response to request `id` left for the client, or the channel closed. */
  delivered(id: RequestId): Promise<void> {
    if (this.#isClosed) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.#waiting.get(id);
      if (list) list.push(resolve);
      else this.#waiting.set(id, [resolve]);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return Promise.reject(stdioChannel.closed());
    const unread = this.#writes.backlog;
    // What the gateway sends is well-formed JSON-RPC (built by the SDK or the fast path): its shape
    // tells its kind, without validating the whole message (a result may be megabytes) again.
    const response = !("method" in message);
    let json = serializeMessage(message);
    if (unread > 0 && unread + json.length > this.#maxUnread) {
      if (unread > 2 * this.#maxUnread) {
        this.#onProblem(`closing the stdio channel: the client left ${unread} bytes unread`);
        void this.close();
        return Promise.reject(stdioChannel.notReading());
      }
      if (response) {
        const id = message.id;
        // The result itself is abandoned: whoever held something until it left may let go now.
        if (id !== undefined) this.#settle(id);
        const what = "result" in message ? "result" : "error";
        json = serializeMessage({
          jsonrpc: "2.0",
          id,
          error: {
            code: UNDELIVERED_RPC_CODE,
            message: undeliveredMessage(what, json.length, unread, this.#maxUnread),
          },
        } as JSONRPCMessage);
      } else if ("id" in message) {
        return Promise.reject(
          stdioChannel.requestUndelivered(message.method, json.length, unread, this.#maxUnread),
        );
      } else {
        // A notification (log message, progress) nobody is reading: dropped, and counted once per episode.
        if (this.#dropped++ === 0)
          this.#onProblem("the client is not reading stdout: dropping notifications");
        return Promise.resolve();
      }
    }
    this.#dropped = 0;
    const id = response ? message.id : undefined;
    return new Promise((resolve) => {
      this.#writes.write(json, () => {
        if (id !== undefined) this.#settle(id);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("end", this.#onEnd);
    this.#stdin.off("close", this.#onEnd);
    this.#stdin.off("error", this.#onEnd);
    this.#stdout.off("close", this.#onEnd);
    // A late write failure (EPIPE after the host left) is expected now and must not crash the process.
    this.#stdout.off("error", this.#onEnd);
    this.#stdout.on("error", () => {});
    this.#framer.clear();
    for (const id of [...this.#waiting.keys()]) this.#settle(id);
    this.#markClosed();
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer) => this.#framer.push(chunk);

  readonly #onEnd = () => {
    void this.close();
  };

  #settle(id: RequestId): void {
    const list = this.#waiting.get(id);
    this.#waiting.delete(id);
    for (const resolve of list ?? []) resolve();
  }

  #onLine(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      // Parsed once: the fast path takes the value as is; the SDK gets it validated.
      const parsed: unknown = JSON.parse(line);
      if (this.intercept?.(parsed)) return;
      message = parseJSONRPCMessage(parsed);
    } catch (error) {
      // The transport contract's onerror wants an Error; a non-Error thrown by the parser is wrapped as is.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      if (error instanceof SyntaxError) this.#reply(null, PARSE_ERROR_RPC_CODE, unparsableLineMessage);
      return;
    }
    // A cancelled request is never answered: whoever waits for its response stops waiting.
    if ("method" in message && message.method === "notifications/cancelled") {
      const target = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof target === "string" || typeof target === "number")
        queueMicrotask(() => this.#settle(target));
    }
    this.onmessage?.(message);
  }

  #onOversized(info: OversizedLine): void {
    const text = oversizedLineMessage(info.bytes, this.#maxMessage);
    this.#onProblem(text);
    if (info.id !== undefined) this.#reply(info.id, MESSAGE_TOO_LARGE_RPC_CODE, text);
  }

  #reply(id: RequestId | null, code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id, error: { code, message } } as JSONRPCMessage).catch(() => {});
  }
}
