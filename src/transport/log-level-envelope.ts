import type {
  JSONRPCMessage,
  LoggingLevel,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/client";
import { LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/client";
import { ForwardingTransport } from "../util/forwarding-transport.js";

/**
 * A transport that asks a 2026-07-28 server for log messages at the configured level on every request.
 * That revision keeps no state between requests, so `logging/setLevel` sets nothing there: a server
 * logs during a request only when the request's `_meta` envelope names a level. The SDK client writes
 * the envelope (its protocol-version key is how a modern-era request is told apart) but never the
 * level; requests of the 2025 era carry no envelope and pass untouched, as do requests that name a
 * level themselves.
 */
export class LogLevelEnvelope extends ForwardingTransport {
  readonly #level: LoggingLevel;

  constructor(inner: Transport, level: LoggingLevel) {
    super(inner);
    this.#level = level;
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(withLevel(message, this.#level), options);
  }
}

function withLevel(message: JSONRPCMessage, level: LoggingLevel): JSONRPCMessage {
  if (!("method" in message) || !("id" in message)) return message;
  const params = message.params as { _meta?: Record<string, unknown> } | undefined;
  const meta = params?._meta;
  if (!meta || !(PROTOCOL_VERSION_META_KEY in meta) || LOG_LEVEL_META_KEY in meta) return message;
  return { ...message, params: { ...params, _meta: { ...meta, [LOG_LEVEL_META_KEY]: level } } };
}
