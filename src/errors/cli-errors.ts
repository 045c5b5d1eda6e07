/**
 * The CLI's own failures other than usage errors (those are in src/apps/cli/usage-errors.ts): a
 * daemon that did not start, project servers not approved without a terminal, a config file missing
 * for an edit or a daemon, a server missing from the config, a sampling request not answered.
 */
import { ConfigError, ErrorCode, McpBridgeError, ServerConnectionError } from "./error-classes.js";

export const daemonDidNotStart = ({ config, log, tail }: { config: string; log: string; tail: string }) =>
  new McpBridgeError(
    ErrorCode.DaemonUnavailable,
    `The daemon for ${config} did not start. Its log (${log}):\n${tail}`,
  );

/** `attach`: the daemon at the socket would not take the session (another version or config, or no daemon at all). */
export const attachRefused = ({ socket, detail }: { socket: string; detail: string }) =>
  new McpBridgeError(
    ErrorCode.DaemonUnavailable,
    `mcp-bridge attach could not open a session with the daemon at ${socket}: ${detail}. Restart it with \`mcp-bridge daemon stop\` (attach starts a new one), or configure \`mcp-bridge serve --stdio\` instead.`,
  );

export const projectNotTrusted = ({ listing, how }: { listing: string; how: string }) =>
  new McpBridgeError(
    ErrorCode.ProjectNotTrusted,
    `Servers defined by this project's config files have not been approved, and there is no terminal to ask:\n${listing}\n${how}`,
  );

/** No config file for a command that needs one: `purpose` is what it was wanted for. */
export function noConfigFileFor({ purpose }: { purpose: "remove" | "daemon" }): ConfigError {
  return new ConfigError(
    ErrorCode.ConfigNotFound,
    purpose === "remove"
      ? "No config file found to remove a server from; see `mcp-bridge config paths`."
      : "No config file to run a daemon for. Name one with --config FILE (see `mcp-bridge config paths`).",
  );
}

/** `where`: the config file, or undefined for "the config"; `near`: the " Did you mean ...?" text. */
export function serverNotInConfig(fields: {
  server: string;
  file?: string;
  near: string;
}): ServerConnectionError {
  const { server, file, near } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerNotFound,
    file === undefined
      ? `No server named "${server}" in the config${near || "."} Run \`mcp-bridge list\` for the servers.`
      : `No server named "${server}" in ${file}${near || "."} Run \`mcp-bridge list\` to see them.`,
    { server },
  );
}

export const serverToolsUnavailable = ({ server, reason }: { server: string; reason: string }) =>
  new ServerConnectionError(
    ErrorCode.ServerUnavailable,
    `Server "${server}" could not be started, so its tools cannot be listed: ${reason}`,
    { server },
  );

export const samplingUnanswered = ({ server }: { server: string }) =>
  new McpBridgeError(ErrorCode.SamplingFailed, `The sampling request of "${server}" ended unanswered.`, {
    server,
  });

export const samplingDeclined = ({ server }: { server: string }) =>
  new McpBridgeError(
    ErrorCode.SamplingFailed,
    `The user declined the sampling request of server "${server}".`,
    { server },
  );

/** The reason the CLI's work is aborted on SIGINT/SIGTERM. */
export const signalReceived = ({ signal }: { signal: string }) => new Error(`received ${signal}`);

/**
 * `serve`, `attach` or `daemon run` started under a bridge (`outer` is the pid in MCP_BRIDGE_SERVING):
 * some config reaches the bridge itself, which would start again and again.
 */
export const bridgeNested = ({ command, outer }: { command: string; outer: string }) =>
  new ConfigError(
    ErrorCode.ConfigInvalid,
    `mcp-bridge ${command} was started by another mcp-bridge (process ${outer}, which set MCP_BRIDGE_SERVING), so a config entry runs the bridge inside itself; it refuses to start. Remove the entry that runs mcp-bridge ${command} from the configs that bridge reads (it belongs in your MCP host's config only).`,
  );

/** `quarantine approve NAME`: NAME is not among the held servers. */
export const heldServerUnknown = ({ server, held }: { server: string; held: readonly string[] }) =>
  new McpBridgeError(
    ErrorCode.Usage,
    held.length === 0
      ? `Server "${server}" is not held: no server waits for approval. Run \`mcp-bridge quarantine\` to see what is held.`
      : `Server "${server}" is not held. Held: ${held.join(", ")}. Run \`mcp-bridge quarantine\` to see their definitions.`,
  );
