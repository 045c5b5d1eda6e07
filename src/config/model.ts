/**
 * The normalized, read-only server model. Every config format (mcpServers JSON, VS Code `servers`,
 * TOML tables and arrays of tables, Codex `mcp_servers`) is turned into these shapes once, at the edge
 * (`normalize.ts`); nothing downstream reads raw config.
 */

import type { Transport } from "@modelcontextprotocol/client";
import type { ApprovalSettings } from "./approval-settings.js";
import type { SamplingPolicy, ServerLogLevel } from "./client-features.js";
import type { GuardrailSettings } from "./guardrail-settings.js";
import type { AuditSettings, PolicySettings } from "./policy-settings.js";
import type { QuarantineMode } from "./quarantine.js";

export type { SamplingPolicy, ServerLogLevel } from "./client-features.js";

/** How a server is reached; `in-process` is given in code only (see `ConnectServer`). */
export type TransportKind = "stdio" | "http" | "sse" | "in-process";

/** A server reached over the network (what may be unreachable, need a login, answer 404 or 5xx). */
export function isRemote(transport: TransportKind): transport is "http" | "sse" {
  return transport === "http" || transport === "sse";
}

export interface RestartPolicy {
  /** Reconnect after a runtime failure (crash, dropped connection, failed health check). */
  readonly enabled: boolean;
  /** Attempts before the server is marked `failed`; 0 means unlimited. */
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /**
   * A restarted server counts as recovered only after staying up this long; one that dies sooner
   * counts as another failed attempt, so the backoff grows and `maxAttempts` ends a crash loop.
   */
  readonly stablePeriodMs: number;
  /**
   * A remote server that cannot be reached (down at start, or still down once `maxAttempts` are used
   * up) is retried in the background until the bridge closes, the wait doubling from
   * `initialDelayMs` up to this ceiling.
   */
  readonly retryCeilingMs: number;
}

export interface ToolFilter {
  /** Original tool names or `*` globs; when non-empty, only matching tools are exposed. */
  readonly include: readonly string[];
  /** Original tool names or `*` globs; matching tools are never exposed (wins over include). */
  readonly exclude: readonly string[];
}

/** Where a server entry came from, for `config show`, `config import` and warnings. */
export interface ConfigSource {
  readonly file: string;
  readonly format: ConfigFormat;
}

export type ConfigFormat =
  | "mcpServers-json"
  | "vscode-json"
  | "toml-table"
  | "toml-array"
  | "codex-toml"
  | "claude-code-user"
  | "object";

/** OAuth / client-credentials settings of a remote server (filled in by the auth layer). */
/** Enterprise-managed authorization (SEP-990): the identity provider that issues the ID-JAG. */
export interface OAuthIdentityProvider {
  readonly tokenEndpoint?: string;
  readonly issuer?: string;
  readonly idToken: string;
  readonly clientId: string;
  readonly clientSecret?: string;
}

/** The fields every grant may carry; each grant's own requirements are in `OAuthSettings`. */
interface OAuthFields {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly clientMetadataUrl?: string;
  readonly scopes?: readonly string[];
  /** The workload's JWT for the jwt_bearer grant (workload identity federation). */
  readonly assertion?: string;
  /** The authorization server's issuer, when known: client credentials are only sent there. */
  readonly issuer?: string;
  readonly idp?: OAuthIdentityProvider;
  readonly tokenEndpointAuthMethod?:
    | "client_secret_basic"
    | "client_secret_post"
    | "private_key_jwt"
    | "none";
  readonly privateKeyPem?: string;
  readonly signingAlgorithm?: string;
  readonly redirectPort?: number;
  /**
   * `mcp-bridge serve`: each authenticated gateway client reaches this server with tokens of its own,
   * obtained with its consent (authorization code flow only); see docs/deploy.md.
   */
  readonly perCaller?: boolean;
}

/**
 * A server's `oauth` table, told apart by `grant` (absent: the authorization code flow). What a grant
 * needs is checked while the config loads: an entry that lacks it is skipped with a warning.
 */
export type OAuthSettings =
  | (OAuthFields & { readonly grant?: "authorization_code" })
  | (OAuthFields & { readonly grant: "client_credentials"; readonly clientId: string })
  | (OAuthFields & { readonly grant: "jwt_bearer"; readonly clientId: string; readonly assertion: string })
  | (OAuthFields & {
      readonly grant: "cross_app_access";
      readonly clientId: string;
      readonly idp: OAuthIdentityProvider;
    });

export type OAuthGrant = NonNullable<OAuthSettings["grant"]>;

interface ServerDefinitionBase {
  /** The name as written in the config (any non-empty string; normalized later for tool names). */
  readonly name: string;
  readonly enabled: boolean;
  /** The host must fail when this server cannot start (Codex `required`). */
  readonly required: boolean;
  readonly startupTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly tools: ToolFilter;
  /** Free labels (`tags`), in the order written, without repeats; `--tag` selects servers by them. Absent when none. */
  readonly tags?: readonly string[];
  /** Per-server cap on result text length; undefined means the global default. */
  readonly maxResultChars?: number;
  /** Per-server cap on result text in tokens; undefined means the global setting (none by default). */
  readonly maxResultTokens?: number;
  /**
   * Connect on first use instead of at start. Unset: not lazy, except under a bridge started with
   * `lazyWithCatalog` (the daemon), where a server the catalog cache lists starts on first use;
   * `false` always starts it with the bridge.
   */
  readonly lazy?: boolean;
  /** Send a read-only or idempotent tool's call once more after a crash cut it short (default off). */
  readonly retryCrashedCalls?: boolean;
  /** false: this server's tools are never listed from nor saved to the catalog cache; undefined follows the setting. */
  readonly catalogCache?: boolean;
  /** What a drift from this server's pinned tool definitions does; undefined follows the setting. */
  readonly onDrift?: DriftAction;
  /** Close a connection unused for this long and reopen it on the next call; undefined means never. */
  readonly idleTimeoutMs?: number;
  /** Calls beyond this many in flight wait in a queue; undefined means no limit. */
  readonly maxConcurrency?: number;
  /**
   * Tool approval by a host that asks a person (chat): true runs this server's tools without asking,
   * false asks before every call; undefined trusts the tools' `readOnlyHint`. The bridge itself ignores it.
   */
  readonly trust?: boolean;
  readonly restart: RestartPolicy;
  /** `ping` period; 0 means off. */
  readonly healthCheckIntervalMs: number;
  /**
   * Protocol era negotiation: `legacy` is the 2024/2025 `initialize` handshake; `auto` probes with
   * `server/discover` (2026-07-28) and falls back; `{ pin }` requires that exact revision.
   * Defaults: `legacy` for stdio (a probe would cost a second spawn), `auto` for remote servers.
   */
  readonly negotiation: "legacy" | "auto" | { readonly pin: string };
  readonly source?: ConfigSource;
  readonly [VALUES_FROM_ENV]?: readonly EnvValue[];
  /** `logging/setLevel` sent after connecting; undefined leaves the server's default. */
  readonly logLevel?: ServerLogLevel;
  /** Roots shown to this server; undefined means the global roots. */
  readonly roots?: readonly string[];
  /** Whether this server may sample and with what cap; undefined means not allowed. */
  readonly sampling?: SamplingPolicy;
  /** Where the server was installed from (`mcp-bridge add REGISTRY-NAME`); undefined for one written by hand. */
  readonly origin?: ServerOrigin;
}

/** The registry entry an installed server came from, and its package pinned (see docs/registry.md). */
export interface ServerOrigin {
  readonly registry: string;
  readonly name: string;
  readonly version: string;
  readonly package?: {
    readonly type: string;
    readonly identifier: string;
    readonly version: string;
    readonly registryBaseUrl?: string;
    readonly integrity?: string;
    readonly tarball?: string;
    readonly digest?: string;
  };
}

/**
 * The values a definition took from the environment through `${VAR}` expansion (and `env_http_headers`,
 * `bearer_token_env_var`), kept under a symbol: spreads copy it along, while JSON output and
 * fingerprints never see it. Redaction masks these wherever they appear.
 */
export const VALUES_FROM_ENV: unique symbol = Symbol("mcp-bridge.valuesFromEnv");

/** One substitution from the environment: which variable, and the value it put into the definition. */
export interface EnvValue {
  readonly variable: string;
  readonly value: string;
}

export interface StdioServerDefinition extends ServerDefinitionBase {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  /** Configured env only; the safe inherited base (PATH, HOME, ...) is added when spawning. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Extra host variables to pass through beyond the safe base; `true` passes the whole host env. */
  readonly inheritEnv: boolean | readonly string[];
  /**
   * Hard cap on one message from the server, in bytes; a larger message fails only the call it answers.
   * Undefined: no hard cap (oversized text is cut to the result size while it streams in).
   */
  readonly maxMessageBytes?: number;
  /** Run the server in a sandbox (bubblewrap on Linux) with these grants; undefined: no sandbox. */
  readonly sandbox?: SandboxPolicy;
  /** Kernel resource limits (rlimits) of the server process; undefined: none. */
  readonly limits?: ResourceLimits;
}

/**
 * Resource limits the kernel enforces on a stdio server (rlimits set by util-linux `prlimit` before the
 * server is executed): see src/transport/sandbox/resource-limits.ts. Each one absent is not limited.
 */
export interface ResourceLimits {
  /** RLIMIT_DATA in MiB: the server's heap and private writable memory (not its reserved address space). */
  readonly memoryMb?: number;
  /** RLIMIT_NPROC: processes and threads of the server (counted in its sandbox's own user namespace). */
  readonly pids?: number;
  /** RLIMIT_CPU in seconds of CPU time: SIGXCPU at the limit, SIGKILL a second later. */
  readonly cpuSeconds?: number;
}

/**
 * What a sandboxed stdio server may reach beyond the strict base (system folders read-only, a private
 * `/tmp` and `HOME`, its own command and package read-only): see src/transport/sandbox/.
 */
export interface SandboxPolicy {
  /** Absolute paths the server may read. */
  readonly read: readonly string[];
  /** Absolute paths the server may read and write. */
  readonly write: readonly string[];
  /** false: no network at all (a private loopback only); true: the host's network. */
  readonly network: boolean;
  /**
   * With `network` false: the hosts the server may still reach, through mcp-bridge's proxy (`network`
   * written as a list); `*.example.com` matches every name below example.com. Absent or empty: none.
   */
  readonly hosts?: readonly string[];
  /** Host environment variables passed in (beside the base set and the server's own `env`). */
  readonly env: readonly string[];
}

export interface RemoteServerDefinition extends ServerDefinitionBase {
  readonly transport: "http" | "sse";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Inferred Streamable HTTP (no explicit transport): fall back to legacy SSE when the server is one. */
  readonly fallbackToSse: boolean;
  readonly oauth?: OAuthSettings;
  /** Refresh an OAuth access token this long before it expires; undefined: the default (60 s). */
  readonly tokenRefreshMarginMs?: number;
}

/**
 * Opens a new transport to an MCP server the host runs itself (in the same process, or reached in a
 * way of its own), for example one end of the SDK's `InMemoryTransport.createLinkedPair()` whose other
 * end an `McpServer` was connected to. A function, not a transport: a transport serves one session and
 * cannot be started again once closed, so each connect (the first, and each reconnect after a crash,
 * an idle timeout or a restart) asks for a fresh one.
 */
export type ConnectServer = () => Transport | Promise<Transport>;

/**
 * A server given in code as `connect` (see `ConnectServer`): library only, since a config file cannot
 * hold a function. Everything else (states, pins, policy, audit, results, restarts) is as for any server.
 */
export interface InProcessServerDefinition extends ServerDefinitionBase {
  readonly transport: "in-process";
  readonly connect: ConnectServer;
}

export type ServerDefinition = StdioServerDefinition | RemoteServerDefinition | InProcessServerDefinition;

export interface BridgeSettings {
  /** Global switch (`[mcp] enabled = false` turns every server off). */
  readonly enabled: boolean;
  /** Exposed tool name format; `{server}` and `{tool}` are replaced by normalized parts. */
  readonly toolNameFormat: string;
  /** Description prefix; `{server}` is replaced; empty string turns it off. */
  readonly descriptionPrefix: string;
  /** Tool name format of `mcp-bridge serve` (its own default is `{server}_{tool}`). */
  readonly serveToolNameFormat?: string;
  readonly maxResultChars: number;
  /** Also cut result text at this many tokens; undefined means no token limit. */
  readonly maxResultTokens?: number;
  /** What happens to a result over a limit: cut (default), or cut and kept whole in a file. */
  readonly resultOverflow?: "truncate" | "file";
  /** Folder for overflow files (absolute: a relative path was resolved against the config file). */
  readonly resultOverflowDir?: string;
  /** Size budget of the overflow folder (default 100 MB). */
  readonly resultOverflowMaxBytes?: number;
  /** Age budget of overflow files, in milliseconds (default 24 h). */
  readonly resultOverflowMaxAgeMs?: number;
  readonly startupTimeoutMs: number;
  readonly callTimeoutMs: number;
  /** Default health-check period for remote servers; stdio servers default to off. */
  readonly healthCheckIntervalMs: number;
  readonly autoReload: boolean;
  /** Other hosts' config files to import servers from (opt-in). */
  readonly imports: readonly ImportSourceName[];
  /** MCP Registry addresses for `search`, `add NAME` and `update`, asked in order; undefined: the official one. */
  readonly registries?: readonly string[];
  /** An OSV advisory file or folder; a package with a malware (MAL-) advisory is refused. */
  readonly advisories?: string;
  /**
   * Roots shown to every server without its own; undefined means none (an empty `roots/list`), so a
   * server that replaces its own folders with the client's roots (server-filesystem) keeps its `args`.
   */
  readonly roots?: readonly string[];
  /** Expose the `list_resources` / `read_resource` tools to the model (default false). */
  readonly resourceTools?: boolean;
  /** The catalog cache (default on): tools listed from each server's last live list while it connects. */
  readonly catalogCache?: boolean;
  /** What a drift from a server's pinned tool definitions does; undefined: the host's default. */
  readonly onDrift?: DriftAction;
  /** `serve` offers its admin tools (status, reload, restart) as with `--admin-tools` (default false). */
  readonly gatewayAdminTools?: boolean;
  /** Global sampling switch and default token cap (each server must still be allowed on its own). */
  readonly sampling?: SamplingPolicy;
  /** Call policy rules (after the managed policy's); undefined: allow every call. */
  readonly policy?: PolicySettings;
  /** The audit log; undefined: none. */
  readonly audit?: AuditSettings;
  /** Which servers are held until approved (quarantine.ts); undefined: `imports`. */
  readonly quarantine?: QuarantineMode;
  /** Where a policy `ask` goes besides the caller's client (local page, webhook); undefined: nowhere. */
  readonly approvals?: ApprovalSettings;
  /** Checks on arguments, results, descriptions and prompts; undefined: none. */
  readonly guardrails?: GuardrailSettings;
}

/**
 * What a change of a server's tool definitions since they were pinned does: `warn` (logged, an event,
 * the tools stay), `block` (changed and new tools are kept out until accepted), `ask` (a person is
 * asked on a terminal; blocked elsewhere).
 */
export type DriftAction = "warn" | "block" | "ask";

/** The hosts whose config files can be imported (`imports`, `config import --from`). */
export const IMPORT_SOURCES = ["claude-code", "claude-desktop", "cursor", "vscode", "codex"] as const;
export type ImportSourceName = (typeof IMPORT_SOURCES)[number];

/**
 * A server entry that was written but left out (unset variable, bad field, no consent): kept so that
 * `status` and `config validate` show every server the user wrote, each with the reason.
 */
export interface SkippedServer {
  readonly name: string;
  /** Best guess from the entry (`command` means stdio, `url` means http); stdio when unknown. */
  readonly transport: TransportKind;
  readonly kind: ConfigWarning["kind"];
  readonly reason: string;
  readonly field?: string;
  readonly file?: string;
}

export interface ConfigWarning {
  /** Stable machine-readable kind of warning. */
  readonly kind:
    | "invalid-entry"
    | "unknown-key"
    | "unset-variable"
    | "unsupported-input"
    /** A `${keyring:NAME}` the secret store does not hold, or a store that could not be read. */
    | "missing-secret"
    | "duplicate-server"
    | "import"
    | "untrusted"
    /** The entry runs mcp-bridge's own `serve`/`attach` (the host's line for the bridge): never started. */
    | "self-reference"
    /** Refused by a malware advisory or by the managed policy's `registries` (docs/registry.md). */
    | "refused"
    /** A server of another host's file nobody approved (quarantine.ts): listed, never started. */
    | "quarantined"
    | "other";
  readonly message: string;
  readonly server?: string;
  readonly field?: string;
  readonly file?: string;
}

export interface ResolvedConfig {
  readonly servers: readonly ServerDefinition[];
  readonly settings: BridgeSettings;
  readonly warnings: readonly ConfigWarning[];
  /** Entries left out, each also in `warnings`; empty when every entry loaded. */
  readonly skipped: readonly SkippedServer[];
  /** The file that was loaded; undefined for a config given as an object or when none was found. */
  readonly file?: string;
  readonly format?: ConfigFormat;
}

/** A server entry of a project-level config file, as written (nothing expanded), awaiting consent. */
export interface ProjectServerRequest {
  readonly file: string;
  readonly name: string;
  /** The raw entry exactly as in the file; its `${VAR}`s are not expanded. */
  readonly definition: unknown;
}

/** Says whether a project-level server may be loaded (and so started); false leaves it out. */
export type AdmitProjectServer = (request: ProjectServerRequest) => boolean;
