/**
 * The CLI <-> daemon protocol: HTTP over the daemon's Unix socket, `POST /<operation>` with a JSON
 * body. The response is NDJSON: zero or more `{"progress": ...}` lines (a tool call's progress) and
 * empty heartbeat lines, then
 * one final `{"result": Envelope}` or `{"error": {code, message}}` line. Only types and pure helpers,
 * so the CLI's daemon path loads nothing of the bridge.
 */
import { ErrorCode, isMcpBridgeError } from "../../errors/error-classes.js";
import { packageInfo } from "../../util/package-info.js";
import { errorText } from "../../util/text-of.js";

/** This package's version: a daemon of another version is not used (its protocol may differ). */
export const PACKAGE_VERSION = packageInfo().version;

/** Header carrying the client's version; a daemon of another version answers 409. */
export const VERSION_HEADER = "mcp-bridge-version";

/** Header carrying the config the client means; a daemon serving another answers 409. */
export const CONFIG_HEADER = "mcp-bridge-config";

/**
 * While a request runs, the daemon writes an empty line this often (the client skips empty lines),
 * so a client can tell a slow call from a daemon that stopped (SIGSTOP, a hung event loop).
 */
export const HEARTBEAT_MS = 5_000;

/** A client gives up on a daemon that has sent nothing at all for this long (several heartbeats). */
export const DAEMON_SILENCE_MS = 30_000;

/**
 * The `Upgrade` protocol of an attach connection (`GET /attach`, with the version and config headers):
 * after the daemon's `101` the connection carries one MCP session as newline-delimited JSON-RPC.
 */
export const ATTACH_UPGRADE = "mcp-bridge-attach";
/** On the attach upgrade: `code` serves that session the code-mode tools (`attach --code-mode`). */
export const ATTACH_MODE_HEADER = "mcp-bridge-attach-mode";
/** On the attach upgrade: `llm` serves that session's tool results as text for a model (`attach --llm-results`). */
export const ATTACH_RESULTS_HEADER = "mcp-bridge-attach-results";

export const OPERATIONS = ["status", "tools", "call", "resources", "read", "prompts", "prompt"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** What an operation answers: the document `--json` prints, and what the CLI needs besides it. */
export interface Envelope {
  /** Exactly the document the command prints with `--json`. */
  readonly document: unknown;
  readonly exitCode: number;
  /** Warnings the command prints on stderr (servers that are not connected). */
  readonly warnings: readonly string[];
  /** `tools` as a table: per tool, whether its parameters flatten completely (else "(+schema)"). */
  readonly complete?: readonly boolean[];
}

export interface StatusRequest {
  readonly verbose?: boolean;
  /** `--tag`: only the servers with any of these labels. */
  readonly tags?: readonly string[];
}

export interface ToolsRequest {
  readonly server?: string;
  /** `--tag`: only the tools of servers with any of these labels. */
  readonly tags?: readonly string[];
  readonly format: "table" | "json" | "openai" | "anthropic";
  /** Describe one tool (exposed name or server/tool). */
  readonly tool?: string;
}

export interface CallRequest {
  readonly name: string;
  readonly pairs: readonly string[];
  readonly args: Record<string, unknown>;
  readonly timeout?: number;
  readonly maxResultChars?: number;
  readonly progress: boolean;
}

export interface ServerFilterRequest {
  readonly server?: string;
}

export interface ReadRequest {
  readonly uri: string;
  readonly server?: string;
  readonly timeout?: number;
  /** --max-chars / --full; undefined: the config's limit. */
  readonly maxResultChars?: number;
}

export interface PromptRequest {
  readonly name: string;
  readonly args: Record<string, string>;
  readonly server?: string;
  readonly timeout?: number;
  /** --max-chars / --full; undefined: the config's limit. */
  readonly maxResultChars?: number;
}

export interface DaemonInfo {
  readonly pid: number;
  readonly activeRequests: number;
  /** MCP sessions attached (`mcp-bridge attach`); the daemon does not stop idle while one is. */
  readonly attachedSessions: number;
  readonly socket: string;
  readonly config: string;
  readonly startedAt: string;
  readonly uptimeMs: number;
  readonly idleMs: number;
  readonly version: string;
}

/** One NDJSON line of a response. */
export type ResponseLine =
  | { readonly progress: { progress: number; total?: number; message?: string } }
  | { readonly result: Envelope }
  | { readonly error: { readonly code: string; readonly message: string } };

/** A call cancelled by its caller (Ctrl-C): the call's document, exit 130 like a shell. */
export function callInterrupted(name: string): Envelope {
  const message = `Interrupted: the call of "${name}" was cancelled; the server may have done part of the work.`;
  return {
    document: { name, isError: true, error: { code: ErrorCode.Aborted, message } },
    exitCode: 130,
    warnings: [],
  };
}

/** The document of a call that produced no tool result (unknown tool, server down, timeout): exit 1. */
export function callFailure(name: string, error: unknown): Envelope {
  const code = isMcpBridgeError(error) ? error.code : "ERROR";
  return {
    document: { name, isError: true, error: { code, message: errorText(error) } },
    // A call the command line got wrong (unknown parameter, a value of the wrong type) exits 2 like any usage error.
    exitCode: code === ErrorCode.Usage ? 2 : 1,
    warnings: [],
  };
}
