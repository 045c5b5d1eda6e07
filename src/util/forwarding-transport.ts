import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/client";

/**
 * A transport that wraps another and passes everything through: the base of the wrappers that change
 * one thing (the level in a request's envelope, tracing, when a legacy session counts as ended). A
 * subclass overrides the method whose behaviour it changes and no other; the inner transport's events
 * arrive at `received`, `failed` and `closed`, which hand them on unchanged unless overridden.
 */
export class ForwardingTransport<Inner extends Transport = Transport> implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  protected readonly inner: Inner;

  constructor(inner: Inner) {
    this.inner = inner;
    // Closures, not bound methods: a subclass's override is found when the event arrives.
    inner.onmessage = (message, extra) => this.received(message, extra);
    inner.onerror = (error) => this.failed(error);
    inner.onclose = () => this.closed();
  }

  protected received(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    this.onmessage?.(message, extra);
  }

  protected failed(error: Error): void {
    this.onerror?.(error);
  }

  protected closed(): void {
    this.onclose?.();
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.inner.setSupportedProtocolVersions?.(versions);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }
}
