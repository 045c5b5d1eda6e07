import type { Bridge } from "../../bridge/api.js";
import { type Logger, SERVER_LOG, SERVER_START_FAILED } from "../../util/logger.js";

/**
 * The logger of `serve`: a host shows the gateway's stderr to its user (some after every call), so it
 * says what the user must fix and nothing else. An upstream server that fails to start (or to come
 * back) is one warning with its name and the (redacted) reason, once until it connects again, not once
 * per reconnect attempt; what upstream servers log themselves only with --verbose.
 */
export function serveLogger(
  logger: Logger,
  verbose: boolean,
): { logger: Logger; watch(bridge: Bridge): () => void } {
  const reported = new Set<string>();
  return {
    logger: {
      ...logger,
      warn: (message, fields) => {
        if (fields?.event === SERVER_LOG && !verbose) return;
        if (fields?.event !== SERVER_START_FAILED) return logger.warn(message, fields);
        const server = String(fields.server ?? "");
        if (reported.has(server) && !verbose) return;
        reported.add(server);
        // The error itself names the server and says why (already redacted); else the bare message.
        const error = typeof fields.error === "string" ? fields.error : undefined;
        const text = error?.includes(`"${server}"`) ? error : error ? `${message}: ${error}` : message;
        logger.warn(text, fields);
      },
      error: (message, fields) => {
        if (fields?.event === SERVER_LOG && !verbose) return;
        logger.error(message, fields);
      },
    },
    /** A server that connected again is reported afresh when it next fails. */
    watch: (bridge) =>
      bridge.on("serverStateChanged", (status) => {
        if (status.state === "connected") reported.delete(status.name);
      }),
  };
}
