import type { Icon } from "@modelcontextprotocol/client";
import type { ServerDefinition, TransportKind } from "../config/model.js";
import { omitUndefined } from "../util/defined.js";

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
  /** `serverInfo` the server reported in its handshake (or discovery), for hosts that show it. */
  readonly serverInfo?: ServerInfo;
  /** Milliseconds the last successful connect took (spawn/handshake/first tools/list). */
  readonly connectMs?: number;
  readonly restarts: number;
  /** Last error, message redacted; `code` is a McpBridgeError code. */
  readonly lastError?: { readonly code: string; readonly message: string };
  /** Last lines written to stderr by a stdio server (bounded ring buffer). */
  readonly stderrTail: readonly string[];
  /** Pid of the running stdio server process, when there is one. */
  readonly pid?: number;
  /** The server runs in a sandbox (`sandbox` in its entry: bubblewrap on Linux). */
  readonly sandboxed: boolean;
}

/** Whether a server runs in a sandbox, as its status says. */
export function isSandboxed(definition: ServerDefinition): boolean {
  return definition.transport === "stdio" && definition.sandbox !== undefined;
}

/** The server's own description of itself (the MCP `Implementation`); every field but name and version optional. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly Icon[];
}

/** Bounds on what a server may put in its self-description: it is kept for the bridge's lifetime. */
const MAX_INFO_CHARS = 2000;
const MAX_ICONS = 16;

/**
 * The fields of a server's `serverInfo` worth keeping, each only when it has the right type and cut
 * to a bound (a server's self-description is untrusted input); undefined without a name.
 */
export function serverInfoOf(info: unknown): ServerInfo | undefined {
  if (typeof info !== "object" || info === null) return undefined;
  const raw = info as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, MAX_INFO_CHARS) : undefined);
  const name = text(raw.name);
  if (name === undefined) return undefined;
  const icons = Array.isArray(raw.icons)
    ? raw.icons
        .filter(
          (icon): icon is Icon => typeof icon === "object" && icon !== null && typeof icon.src === "string",
        )
        .slice(0, MAX_ICONS)
    : [];
  // omitUndefined: the info is shown as JSON (status, cache files), where an absent field stays absent.
  return omitUndefined({
    name,
    version: text(raw.version) ?? "",
    title: text(raw.title),
    description: text(raw.description),
    websiteUrl: text(raw.websiteUrl),
    icons: icons.length > 0 ? icons : undefined,
  });
}
