/**
 * The library never writes to the console by itself: hosts inject a Logger.
 * Fields must already be free of secrets; use `redact*` helpers before logging config values.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const noop = (): void => {};

export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/**
 * The `event` field of a warning that a server failed to start (or to reconnect): a host that reports
 * failed servers in its own output (the CLI's status table and answers) can leave these out.
 */
export const SERVER_START_FAILED = "server-start-failed";

/**
 * The `event` field of a message a server logged itself (`notifications/message`): a host that shows
 * only what its user must act on (`serve`) leaves these out.
 */
export const SERVER_LOG = "server-log";
