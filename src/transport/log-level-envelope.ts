import type {
  JSONRPCMessage,
  LoggingLevel,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/client";
import { LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/client";

/**
 * A transport that asks a 2026-07-28 server for log messages at the configured level on every request.
 * That revision keeps no state between requests, so `logging/setLevel` sets nothing there: a server
 * logs during a request only when the request's `_meta` envelope names a level. The SDK client writes
 * the envelope (its protocol-version key is how a modern-era request is told apart) but never the
 * level; requests of the 2025 era carry no envelope and pass untouched, as do requests that name a
 * level themselves.
 */
export class LogLevelEnvelope implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #level: LoggingLevel;

  constructor(inner: Transport, level: LoggingLevel) {
    this.#inner = inner;
    this.#level = level;
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.#inner.hasPerRequestStream;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#inner.setSupportedProtocolVersions?.(versions);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(withLevel(message, this.#level), options);
  }
}

function withLevel(message: JSONRPCMessage, level: LoggingLevel): JSONRPCMessage {
  if (!("method" in message) || !("id" in message)) return message;
  const params = message.params as { _meta?: Record<string, unknown> } | undefined;
  const meta = params?._meta;
  if (!meta || !(PROTOCOL_VERSION_META_KEY in meta) || LOG_LEVEL_META_KEY in meta) return message;
  return { ...message, params: { ...params, _meta: { ...meta, [LOG_LEVEL_META_KEY]: level } } };
}
