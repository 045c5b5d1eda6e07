import type { TransportKind } from "../config/model.js";

export type ServerState =
  | "disabled"
  | "idle"
  | "connecting"
  | "connected"
  | "reconnecting"
  | "failed"
  | "closed"
  /** A config entry that could not be loaded (unset variable, bad field); `lastError` says why. */
  | "invalid";

/** What a host can read about one configured server. Secrets are already redacted. */
export interface ServerStatus {
  readonly name: string;
  readonly transport: TransportKind;
  readonly state: ServerState;
  readonly toolCount: number;
  /**
   * `cache`: the tools are the server's last list from the catalog cache, shown while the server
   * connects; the live list replaces them (a `toolsChanged` event when it differs). Absent otherwise.
   */
  readonly catalog?: "cache";
  /**
   * Tools the server lists that are not exported because the bridge cannot call them (for example
   * task-required tools), each with the reason. Absent when there are none.
   */
  readonly skippedTools?: readonly { readonly tool: string; readonly reason: string }[];
  /** Protocol version negotiated with the server, once connected. */
  readonly protocolVersion?: string;
  /** `serverInfo` reported by the server. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Milliseconds the last successful connect took (spawn/handshake/first tools/list). */
  readonly connectMs?: number;
  readonly restarts: number;
  /** Last error, message redacted; `code` is a McpBridgeError code. */
  readonly lastError?: { readonly code: string; readonly message: string };
  /** Last lines written to stderr by a stdio server (bounded ring buffer). */
  readonly stderrTail: readonly string[];
  /** Pid of the running stdio server process, when there is one. */
  readonly pid?: number;
}
