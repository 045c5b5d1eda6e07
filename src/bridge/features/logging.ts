import type { Client, LoggingLevel } from "@modelcontextprotocol/client";
import { definedOnly, omitUndefined } from "../../util/defined.js";
import { type Logger, SERVER_LOG } from "../../util/logger.js";
import { plainText } from "../../util/plain-text.js";
import type { SecretMask } from "../../util/redact.js";
import { errorText, textOf } from "../../util/text-of.js";
import type { FeatureContext } from "./feature-context.js";

/** MCP's eight syslog levels onto the logger's four. */
const LEVELS: Record<LoggingLevel, keyof Logger> = {
  debug: "debug",
  info: "info",
  notice: "info",
  warning: "warn",
  error: "error",
  critical: "error",
  alert: "error",
  emergency: "error",
};

export const LOGGING_LEVELS = Object.keys(LEVELS) as LoggingLevel[];

/** A server's `notifications/message`, as the bridge's `serverLog` event carries it. */
export interface ServerLogMessage {
  /** The server's config name. */
  readonly server: string;
  readonly level: LoggingLevel;
  /** The server's own logger name, if it gave one. */
  readonly logger?: string;
  /**
   * What the server sent, with the bridge's secrets masked in every string (strip control characters
   * before showing it on a terminal).
   */
  readonly data: unknown;
}

/**
 * Sends a server's `notifications/message` to the host's logger with the server's name and level,
 * and to the bridge's `serverLog` event. The message is masked here, where it enters the bridge,
 * so every consumer (logger, event, CLI, daemon log, gateway clients) gets it masked.
 */
export function registerLogging(client: Client, server: string, context: FeatureContext): void {
  client.setNotificationHandler("notifications/message", (notification) => {
    const message = serverLogMessage(server, notification.params, context.options.secrets);
    context.events.emit("serverLog", message);
    const { level, logger: name, data } = message;
    context.logger[LEVELS[level]](
      `[${plainText(server, 200)}] ${plainText(textOf(data))}`,
      definedOnly({
        server,
        level,
        event: SERVER_LOG,
        logger: name === undefined ? undefined : plainText(name, 200),
      }),
    );
  });
}

/**
 * A server's `notifications/message` params as the bridge passes them on: a known level (else
 * `info`), the logger name if a string, every string masked. Also used for the messages a call's
 * caller gets (`CallOptions.onLog`), which never went through the handler above.
 */
export function serverLogMessage(
  server: string,
  params: { readonly level?: unknown; readonly logger?: unknown; readonly data?: unknown },
  secrets: SecretMask,
): ServerLogMessage {
  const level = (
    typeof params.level === "string" && Object.hasOwn(LEVELS, params.level) ? params.level : "info"
  ) as LoggingLevel;
  const name = typeof params.logger === "string" ? secrets.text(params.logger) : undefined;
  // Absent, not undefined, when the server named no logger: the message reaches hosts and gateway clients.
  return omitUndefined({ server, level, logger: name, data: secrets.deep(params.data) });
}

/** `logging/setLevel` on a freshly connected session, when configured and the server logs. */
export async function applyLogLevel(
  client: Client,
  server: string,
  level: LoggingLevel | undefined,
  logger: Logger,
  timeoutMs: number,
): Promise<void> {
  if (level === undefined || !client.getServerCapabilities()?.logging) return;
  await client.setLoggingLevel(level, { timeout: timeoutMs }).catch((error: unknown) =>
    logger.warn(`Server "${server}" did not accept log level "${level}"`, {
      server,
      error: errorText(error),
    }),
  );
}
