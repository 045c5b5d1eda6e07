import type { CallToolResult } from "@modelcontextprotocol/client";
import type { AuthOptions } from "../auth/oauth-client.js";
import type { ResolveInput } from "../config/inputs.js";
import type { AdmitProjectServer, DriftAction, ResolvedConfig, ServerDefinition } from "../config/model.js";
import type { SettingsInput } from "../config/settings.js";
import type { InputRound } from "../connection/server-connection.js";
import type { ServerStatus } from "../connection/server-status.js";
import type { SharedToolLists } from "./tool-lists/shared-tool-lists.js";

export type { InputRound };

import type {
  BridgeStats,
  FlatParameters,
  ToolDefinition,
  ToolFilterCallback,
} from "../registry/tool-definition.js";
import type { ToolResult } from "../results/tool-result.js";
import type { ToolSearchOptions } from "../search/tool-search.js";
import type { TelemetrySetting } from "../telemetry/telemetry-options.js";
import type { Logger } from "../util/logger.js";
import type { CallerReach } from "../util/reach.js";
import type { SurfaceMethods } from "./features/feature-methods.js";
import type { ServerLogMessage } from "./features/logging.js";
import type { SamplingHandler } from "./features/sampling.js";
import type { PinDriftEvent, PinReport } from "./pins/definition-pins.js";
import type { PinKind } from "./pins/fingerprint.js";

export type { PinDriftEvent, PinReport } from "./pins/definition-pins.js";
export type { PinDrift, PinKind } from "./pins/fingerprint.js";

/**
 * What the MCP features use of the pins: a listing of prompts or resource templates, or a `ui://`
 * resource read, checked against its server's pins (see pins/definition-pins.ts).
 */
export interface PinChecker {
  check<T extends { readonly name: string }>(
    definition: ServerDefinition,
    kind: PinKind,
    items: readonly T[],
    setting: DriftAction | undefined,
  ): { readonly admitted: readonly T[] };
}

export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Per-call options, last argument of every call (as the SDK's RequestOptions). */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Milliseconds; defaults to the server's call timeout. Includes waiting for a reconnect. */
  readonly timeout?: number;
  readonly onProgress?: (progress: Progress) => void;
  /** A progress notification restarts the timeout (long tools that keep reporting are not cut off). */
  readonly resetTimeoutOnProgress?: boolean;
  /** Overrides the server's / global max result characters for this call. */
  readonly maxResultChars?: number;
  /** Also limit the result text in tokens (o200k tokenizer); overrides `results.maxTokens`. */
  readonly maxResultTokens?: number;
  /** `throw` (default): failures throw a typed McpBridgeError. `result`: failures become an `Error: ...` result. */
  readonly onError?: "throw" | "result";
  /** Check arguments against the tool's inputSchema before sending. */
  readonly validateArguments?: boolean;
  /**
   * Who is calling, for the call policy's `caller` rules and the audit log: a gateway passes its
   * client's identity; a local call is `""`.
   */
  readonly caller?: string;
  /**
   * What the caller may reach (a gateway passes its client's profile). The bridge does not read it for
   * a server's tool (the gateway checks a direct call first); a tool that calls others on the caller's
   * behalf (code mode's) calls, lists and describes only what is within it.
   */
  readonly reach?: CallerReach;
  /** Answers a policy `ask` for this call (overrides BridgeOptions.approveCall). */
  readonly approveCall?: ApproveCall;
  /**
   * The caller's own client as a way to ask a person (a gateway's downstream client that declared
   * elicitation): asked for a policy `ask` when no `approveCall` answers it, before the `approvals`
   * setting's page and webhook.
   */
  readonly approvalClient?: ApprovalClient;
  /**
   * The log messages the server sent with this call (masked as for `serverLog`): those a Streamable
   * HTTP server sends on the call's own response stream. Nothing ties a stdio or legacy SSE server's
   * messages to a call, so those only reach `serverLog` and the logger (as these do too).
   */
  readonly onLog?: (message: ServerLogMessage) => void;
  /**
   * The caller drives a 2026-07-28 server's `input_required` rounds itself (a gateway passing them to
   * its own client): the result's upstream original (`upstreamOf`) may then be an `input_required`
   * result, and a retry passes the answers and the server's `requestState` here. `{}` is a first leg.
   */
  readonly inputRound?: InputRound;
  /**
   * Sends the call over a connection of the caller's own instead of the bridge's, when it returns one
   * (the gateway's per-caller upstreams: each client reaches the server with its own tokens); the
   * policy, audit, pins and result limits apply as to any call. Undefined: the bridge's connection.
   */
  readonly upstream?: CallUpstream;
}

/** See `CallOptions.upstream`: the call's result over the caller's own connection, or undefined. */
export type CallUpstream = (
  server: string,
  tool: string,
  args: Record<string, unknown>,
  options: UpstreamCallOptions,
) => Promise<CallToolResult> | undefined;

/** What bounds and watches a call sent over the caller's own connection (see `CallOptions.upstream`). */
export interface UpstreamCallOptions {
  /** The call's timeout (the caller's, else the server's `callTimeout`). */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: Progress) => void;
  readonly resetTimeoutOnProgress?: boolean;
}

/** A call the policy wants a person to approve (a rule with `action: "ask"`). */
export interface CallApprovalRequest {
  readonly server: string;
  readonly tool: string;
  /** The exposed name the call used. */
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly caller: string;
  /** The rule's `reason`, if it has one. */
  readonly reason: string | undefined;
}

/** Says whether a call a policy `ask` rule matched may run; false (or a throw) denies it. */
export type ApproveCall = (
  request: CallApprovalRequest,
) => boolean | ApprovalAnswer | Promise<boolean | ApprovalAnswer>;

/** Where an approval's answer came from: the host's callback, the caller's client, the page, the webhook. */
export type ApprovalChannel = "host" | "client" | "page" | "webhook" | "timeout" | "none";

/** A person's answer to an approval question, and who gave it (recorded in the audit log). */
export interface ApprovalAnswer {
  readonly approved: boolean;
  /** Who answered: the name given on the page or by the webhook, the client's caller identity, `host`. */
  readonly by: string;
  /** How the answer came; `timeout`: nobody answered in time; `none`: nobody could be asked. */
  readonly channel?: ApprovalChannel;
}

/** The caller's client as an approval channel; each member is present only when the client declared it. */
export interface ApprovalClient {
  /** Asks the question as a form-mode elicitation; resolves true when the person allows the call. */
  readonly form?: (message: string, signal: AbortSignal) => Promise<boolean>;
  /** Points the person at the approval page with a URL-mode elicitation. */
  readonly url?: (url: string, message: string, signal: AbortSignal) => Promise<void>;
}

/** One tool as the host's LLM sees it, callable. */
export interface ToolEntry extends ToolDefinition {
  call(args?: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  /** A flat parameter list for hosts with simple parameter models. */
  flatParameters(): FlatParameters;
}

/** Raw server entries as in an `mcpServers` map (any supported spelling of the fields). */
export type RawServers = Record<string, Record<string, unknown>>;

export interface BridgeOptions {
  /** Path of a config file. Without `config` and `servers`, the search order is used. */
  readonly config?: string;
  /** Servers given in code, in `mcpServers` shape; used instead of a file. */
  readonly servers?: RawServers;
  /** Servers added to the config's (or to `servers`); one with a configured name replaces it. */
  readonly extraServers?: RawServers;
  /**
   * Overrides of the global settings, applied to every server: the keys of a config file's `settings`
   * table (`callTimeout: "1500ms"`) or the resolved names (`callTimeoutMs: 1500`). A bad key or value
   * makes `startBridge` throw CONFIG_INVALID.
   */
  readonly settings?: SettingsInput;
  /** Working directory for the config search order; defaults to process.cwd(). */
  readonly cwd?: string;
  /** Environment for `${VAR}` expansion and the search order; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
  /** Resolve `start()` only when every enabled server is connected or failed (default true). */
  readonly wait?: boolean;
  /** Start only these servers (by original name); the rest stay configured but idle. */
  readonly only?: readonly string[];
  /** Start only the servers with at least one of these `tags` (with `only`: those that pass both). */
  readonly tags?: readonly string[];
  /** The host's own tool names: an MCP tool whose exposed name collides is skipped with a warning. */
  readonly reservedToolNames?: readonly string[];
  readonly toolFilter?: ToolFilterCallback;
  /** Default for CallOptions.onError. */
  readonly onError?: "throw" | "result";
  /** Default for CallOptions.validateArguments. */
  readonly validateArguments?: boolean;
  /**
   * Answers the call policy's `ask` rules (default for CallOptions.approve). Without it an `ask` is a
   * deny whose result says nobody could be asked.
   */
  readonly approveCall?: ApproveCall;
  /** `clientInfo` sent to servers. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** OAuth for remote servers: token storage and how the authorization step runs (see auth/). */
  readonly auth?: AuthOptions;
  /**
   * Answers a server's `elicitation/create`. Default: decline (a library host has no person to ask,
   * and a server's schema defaults are not the user's consent).
   */
  readonly onElicitation?: ElicitationHandler;
  /**
   * Consent for servers of project-level config files found in `cwd` (see LoadConfigOptions), asked
   * before their `${VAR}`s are expanded, at start and on reload. Default: all admitted.
   */
  readonly admitProjectServer?: AdmitProjectServer;
  /**
   * Fulfils servers' `sampling/createMessage` with the host's LLM (see `openAISamplingHandler`). Without
   * it the sampling capability is not declared. Only servers allowed in the config (`sampling: true`)
   * may sample; `maxTokens` is capped by the config.
   */
  readonly onSampling?: SamplingHandler;
  /**
   * Adds two tools, `list_resources` and `read_resource` in the configured name format (e.g.
   * `mcp_list_resources`), so a model can browse and read every server's resources. Overrides the
   * `resourceTools` setting; default off.
   */
  readonly resourceTools?: boolean;
  /**
   * Answers VS Code `${input:id}` prompts of the config (see LoadConfigOptions.resolveInput). Default:
   * none, and the entries that use an input are skipped (state `invalid`).
   */
  readonly resolveInput?: ResolveInput;
  /** Fail `start()` when a server marked `required` could not start (default true). */
  readonly enforceRequired?: boolean;
  /** How large results reach the model (besides each server's `maxResultChars`). */
  readonly results?: ResultOptions;
  /**
   * The catalog cache: with each server's last live tool list saved, `start()` resolves with every
   * tool at once while the servers connect behind it (a call waits for its own server; the live list
   * corrects the cached one with a `toolsChanged` event). Overrides the `catalogCache` setting and the
   * `MCP_BRIDGE_CATALOG_CACHE=0` environment switch; default on.
   */
  readonly catalogCache?: boolean;
  /**
   * Lazy by default where the catalog cache can answer (what the daemon behind `attach` runs): a
   * server the catalog cache holds a fresh list for is not started with the bridge unless its entry
   * says `lazy: false` or `required: true`; its cached tools are listed at once and its first call (or
   * a request naming it) starts it. Servers with no cached list start as usual. Default false.
   */
  readonly lazyWithCatalog?: boolean;
  /**
   * Folder of the catalog cache. Default: `MCP_BRIDGE_CACHE_DIR`, else `$XDG_CACHE_HOME/mcp-bridge`
   * (`~/.cache/mcp-bridge`; `~/Library/Caches/mcp-bridge` on macOS, `%LOCALAPPDATA%\mcp-bridge\Cache`
   * on Windows), read from `env`; without any of these the cache is off.
   */
  readonly cacheDir?: string;
  /**
   * A catalog cache shared with other bridges (the gateway's `--store`): each live tool list is saved
   * there too, and a start lists from it the servers the local cache has nothing fresh for. Its
   * entries are checked like files and shown as `catalog: "cache"` until the live list arrives; calls
   * always wait for the live connection. Off whenever the catalog cache is.
   */
  readonly sharedCatalog?: SharedToolLists;
  /**
   * OpenTelemetry spans and metrics of every MCP request, following the MCP semantic conventions,
   * with W3C trace context sent in `params._meta`. Default `true`: the global providers of
   * `@opentelemetry/api` when it is installed (an optional peer), nothing when it is not. `false`
   * turns it off; `{ tracerProvider, meterProvider }` uses these instead of the global ones.
   */
  readonly telemetry?: TelemetrySetting;
  /**
   * Pinned tool definitions (trust on first use): each server's first listing is fingerprinted and
   * kept beside the catalog cache (in `cacheDir`); a later change is a drift (see `onDrift`). Default
   * on; `false` or `MCP_BRIDGE_PINS=0` turns it off.
   */
  readonly pins?: boolean;
  /**
   * What a drift does for servers whose config says nothing (`onDrift` per server or in `settings`):
   * `warn` (default: logged and a `pinsDrifted` event; the tools stay), `block` (changed and new tools
   * are kept out; calling one fails with TOOL_CHANGED), `ask` (asks `confirmDrift`; blocks without it).
   */
  readonly onDrift?: DriftAction;
  /** Asks a person whether to accept a drift (for `ask`); true accepts it as the new pins. */
  readonly confirmDrift?: (event: PinDriftEvent) => Promise<boolean>;
}

export interface ResultOptions {
  /** Cut result text at this many tokens (counted with a real tokenizer), as well as at the character limit. */
  readonly maxTokens?: number;
  /**
   * `truncate` (default): a result over a limit is cut with a marker. `file`: the whole result is
   * also written to a file (mode 0600) under `overflowDir`, and the model reads the head plus the
   * file's path.
   */
  readonly overflow?: "truncate" | "file";
  /**
   * Folder for overflow files (default: `mcp-bridge-results-<uid>` in the system temp folder, used only
   * when it is a 0700 folder of this user's). A shared folder named here (1777, group-writable) gets a
   * per-user subfolder; an existing folder is never chmod-ed.
   */
  readonly overflowDir?: string;
  /** Total size of the overflow files kept in the folder; the oldest are removed first (default 100 MB). */
  readonly overflowMaxBytes?: number;
  /** Overflow files older than this many milliseconds are removed (default 24 hours). */
  readonly overflowMaxAgeMs?: number;
  /** Keep the overflow files when the bridge closes (default false: `close()` removes the files it wrote). */
  readonly keepOverflowFiles?: boolean;
}

export interface ReloadSummary {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Replaced by a new connection (a new process for stdio). */
  readonly restarted: readonly string[];
  /**
   * Servers whose connection (and process) kept running; a changed tool filter is one of them: it is
   * applied to the running server's tools.
   */
  readonly unchanged: readonly string[];
}

export interface ToolsChangedEvent {
  readonly server: string;
  /** The server's tools now (empty when it failed, closed or was removed from the config). */
  readonly tools: readonly ToolEntry[];
  /** Exposed names of the server's tools that are gone since the previous event. */
  readonly removed: readonly string[];
}

export interface BridgeEventMap {
  serverStateChanged: [status: ServerStatus];
  toolsChanged: [event: ToolsChangedEvent];
  /** A server sent `notifications/resources/list_changed`; `resources()` lists afresh. */
  resourcesChanged: [event: { readonly server: string }];
  /** A server sent `notifications/prompts/list_changed`; `prompts()` lists afresh. */
  promptsChanged: [event: { readonly server: string }];
  /** A server sent a log message (`notifications/message`); it also goes to the logger. */
  serverLog: [message: ServerLogMessage];
  /**
   * A server's listing differs from its pinned definitions (told once per distinct drift): what
   * changed, and what was done (`warn`: kept, `block`/`ask`: kept out until accepted).
   */
  pinsDrifted: [event: PinDriftEvent];
}

export type { BridgeStats, LatencyStats } from "../registry/tool-definition.js";

export interface Bridge extends AsyncDisposable, SurfaceMethods {
  readonly config: ResolvedConfig;
  servers(): ServerStatus[];
  server(name: string): ServerStatus | undefined;
  tools(filter?: { server?: string }): ToolEntry[];
  tool(name: string): ToolEntry | undefined;
  /**
   * The tools that best match a task described in words, best first (BM25 over names, titles,
   * descriptions and parameters; an exact tool name ranks first). `limit` defaults to 5.
   */
  searchTools(query: string, options?: ToolSearchOptions): ToolEntry[];
  /** Exposed name or `server/tool` to the original server and tool. */
  resolve(name: string): { server: string; tool: string } | undefined;
  call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  /** Wait until every enabled, non-lazy server is connected or failed. */
  ready(): Promise<void>;
  reload(): Promise<ReloadSummary>;
  /**
   * Stops one server (its process tree is gone) and starts it again with a fresh restart budget;
   * resolves with its status once connected, rejects with the start error (SERVER_START_FAILED,
   * SERVER_START_TIMEOUT, AUTH). Calls in flight on it fail with SERVER_CRASHED; calls made meanwhile
   * wait for the new connection. An unknown name is SERVER_NOT_FOUND (with the closest name), a
   * disabled server SERVER_UNAVAILABLE.
   */
  restart(server: string): Promise<ServerStatus>;
  /**
   * Lists tools again now (of one server, or of every connected one), as a server's tools/list_changed
   * would; resolves once the new lists are published (`toolsChanged` fires for a changed list). An
   * unknown name is SERVER_NOT_FOUND; a server that cannot connect or list rejects with its error.
   */
  refreshTools(server?: string): Promise<void>;
  stats(): BridgeStats;
  /** Each configured server's pins: file, count, the drift of its last listing, what is blocked. */
  pins(server?: string): PinReport[];
  /**
   * Accepts a server's current listing as its pins (ending its drift; blocked tools come back).
   * An unknown name is SERVER_NOT_FOUND.
   */
  acceptPins(server: string): Promise<PinReport>;
  on<E extends keyof BridgeEventMap>(event: E, listener: (...args: BridgeEventMap[E]) => void): () => void;
  close(): Promise<void>;
}

export interface ElicitationRequest {
  /** The asking server's config name. */
  readonly server: string;
  /** `form`: fill in `requestedSchema`; `url`: open `url` for the user (answer accept, decline or cancel). */
  readonly mode?: "form" | "url";
  readonly message: string;
  readonly requestedSchema?: Record<string, unknown>;
  readonly url?: string;
  readonly elicitationId?: string;
}

export type ElicitationResponse =
  | { readonly action: "accept"; readonly content: Record<string, unknown> }
  | { readonly action: "decline" | "cancel" };

export type ElicitationHandler = (
  request: ElicitationRequest,
) => Promise<ElicitationResponse> | ElicitationResponse;
