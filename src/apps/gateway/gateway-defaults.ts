/**
 * Every default of the gateway, in one table: `startGateway` and `serveGatewayStdio` resolve their
 * options against it once, at entry, and nothing below them defaults again. `serve` passes what the
 * user typed and never defaults.
 */
export const GATEWAY_DEFAULTS = {
  host: "127.0.0.1",
  /** A free port. */
  port: 0,
  maxBodyBytes: 4 * 1024 * 1024,
  maxUnreadBytes: 32 * 1024 * 1024,
  /** Longest message line the stdio channel reads. */
  maxMessageBytes: 10 * 1024 * 1024,
  drainTimeoutMs: 30_000,
  maxSessions: 1000,
  sessionIdleMs: 30 * 60_000,
  maxConcurrentCalls: 16,
  /** Calls of one client waiting for a slot before the next is refused. */
  maxQueuedCalls: 64,
  /** Unlimited. */
  callsPerMinute: undefined,
  /** How long a forwarded elicitation or sampling request waits for the downstream client. */
  forwardTimeoutMs: 10 * 60_000,
  /**
   * How long a client's first `tools/list` (and every REST listing) waits for servers still connecting
   * with no cached list: most hosts list once at start, so an answer before the servers are up is an
   * empty list for good. A server hanging at its handshake delays it no longer than this.
   */
  listWaitMs: 5_000,
} as const;
