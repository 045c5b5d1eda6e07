import type { Readable, Writable } from "node:stream";
import type { Bridge } from "../../../bridge/api.js";
import {
  gatewayNeedsAuth,
  gatewayOptionInvalid,
  stateDirWithStore,
  storeNeedsClusterSecret,
  storeUrlInvalid,
} from "../../../errors/gateway-errors.js";
import type { Telemetry } from "../../../telemetry/create-telemetry.js";
import { type Logger, silentLogger } from "../../../util/logger.js";
import { packageInfo } from "../../../util/package-info.js";
import type { GatewayLimits, ResolvedLimits } from "../admission/client-limits.js";
import { MIN_CLUSTER_SECRET_BYTES, newReplicaId, type Replica } from "../cluster/replica.js";
import type { RequestForwarder } from "../forwarding/forward.js";
import { GATEWAY_DEFAULTS } from "../gateway-defaults.js";
import type { GatewayOAuth } from "../identity/jwt-auth.js";
import type { GatewayToken } from "../identity/static-tokens.js";

export { GATEWAY_DEFAULTS } from "../gateway-defaults.js";

export interface GatewayOptions {
  readonly bridge: Bridge;
  /** Default 127.0.0.1. Any other address requires `tokens`. */
  readonly host?: string;
  /** Default 0 (a free port). */
  readonly port?: number;
  /** Static bearer tokens; when given, every MCP request must carry one. */
  readonly tokens?: readonly GatewayToken[];
  /** OAuth 2.1 resource-server mode: JWT access tokens verified against the issuer's JWKS. */
  readonly oauth?: GatewayOAuth;
  /** Per-client limits on tool calls. */
  readonly limits?: GatewayLimits;
  /** Largest request body in bytes (413 above). Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Bytes one client may leave unread (results, log messages, progress) before its notifications are
   * dropped and its results replaced by an error. Default 32 MiB.
   */
  readonly maxUnreadBytes?: number;
  /** How long `drain()` waits for in-flight calls, in ms. Default 30 000. */
  readonly drainTimeoutMs?: number;
  /** Most open 2025-11-25 sessions at once (503 above). Default 1000. */
  readonly maxSessions?: number;
  /** A 2025-11-25 session without a request for this long is closed (0: never). Default 30 min. */
  readonly sessionIdleMs?: number;
  /** Version reported in `serverInfo`. */
  readonly version?: string;
  /**
   * Routes upstream elicitation and sampling to the downstream client whose call caused them; the
   * same forwarder's handlers must be the bridge's `onElicitation` and `onSampling` (see forward.ts).
   */
  readonly forwarder?: RequestForwarder;
  /** SERVER spans and `mcp.server.operation.duration` per request (see `createTelemetry`); none without. */
  readonly telemetry?: Telemetry;
  /** Serve the admin tools (status, reload, restart) to clients whose profile allows it (see admin-tools.ts). */
  readonly adminTools?: boolean;
  /**
   * Bearer token of `GET /status`, `POST /reload`, `POST /restart/{server}` (never a client token's
   * job); without one these routes answer 404.
   */
  readonly adminToken?: string;
  /** This replica's id among a cluster's (store records, forwarded requests). Default a random one. */
  readonly replicaId?: string;
  /** The URL other replicas reach this one's `/mcp` at. Default the gateway's own URL. */
  readonly advertiseUrl?: string;
  /**
   * Signs the requests replicas forward to each other (the same on every replica, at least 32 bytes).
   * Without it this replica neither forwards nor accepts forwarded requests.
   */
  readonly clusterSecret?: Uint8Array;
  /**
   * The cluster store, a `redis://` (or `rediss://`) URL: per-client call budgets and 2025-11-25
   * session ownership shared by the replicas (see docs/deploy.md). Without one this replica shares nothing.
   */
  readonly store?: string;
  /**
   * A private folder (created 0700) where a single gateway keeps its 2025-11-25 sessions' records, so
   * that started again after any end, `kill -9` included, it continues every session it issued within
   * `sessionIdleMs` (cluster/file-store.ts). Not with `store`, which keeps them itself.
   */
  readonly stateDir?: string;
  /**
   * Use `store` without `clusterSecret`. Refused otherwise: without the secret nothing the store holds
   * can be told from what another writer of it planted (session records, tool lists).
   */
  readonly insecureStore?: boolean;
  /** Where the gateway reports what an operator must know (the cluster store down, back); silent by default. */
  readonly logger?: Logger;
  /**
   * Answer `tools/call` of established sessions on node:http directly (fast-path/); default true.
   * A diagnostic switch (`MCP_BRIDGE_GATEWAY_FAST_PATH=0` for `serve`): both paths answer alike.
   */
  readonly fastPath?: boolean;
  /** See GATEWAY_DEFAULTS.listWaitMs; 0 answers at once. */
  readonly listWaitMs?: number;
  /**
   * Serve every client's tool results as the library gives them to a model: one text block (images
   * described, cut at the server's `maxResultChars` with the bridge's marker), `isError` kept,
   * `structuredContent` kept unless its JSON is over that cap. Default false: results pass unchanged.
   * A profile's `llmResults` turns it on for one client.
   */
  readonly llmResults?: boolean;
  /**
   * Where the tokens of servers in per-caller mode (`"oauth": { "perCaller": true }`) are kept, one
   * login per gateway client and server; default the OAuth token folder (`mcp-bridge/auth`).
   */
  readonly callerAuthDir?: string;
}

/** `GatewayOptions` with every default applied and every value checked: what the gateway reads. */
export interface ResolvedGatewayOptions {
  readonly bridge: Bridge;
  readonly host: string;
  /** Whether `host` is a loopback address (DNS-rebinding checks apply, auth is optional). */
  readonly loopback: boolean;
  readonly port: number;
  readonly tokens: readonly GatewayToken[];
  readonly oauth: GatewayOAuth | undefined;
  readonly limits: ResolvedLimits;
  readonly maxBodyBytes: number;
  readonly maxUnreadBytes: number;
  readonly drainTimeoutMs: number;
  readonly maxSessions: number;
  readonly sessionIdleMs: number;
  readonly version: string;
  readonly forwarder: RequestForwarder | undefined;
  readonly telemetry: Telemetry | undefined;
  readonly adminTools: boolean;
  readonly adminToken: string | undefined;
  readonly replica: Replica;
  readonly store: string | undefined;
  readonly stateDir: string | undefined;
  readonly logger: Logger;
  readonly fastPath: boolean;
  readonly listWaitMs: number;
  readonly llmResults: boolean;
  readonly callerAuthDir: string | undefined;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** The HTTP gateway's options, defaulted from GATEWAY_DEFAULTS and each checked once. */
export function resolveGatewayOptions(options: GatewayOptions): ResolvedGatewayOptions {
  const {
    bridge,
    host = GATEWAY_DEFAULTS.host,
    port = GATEWAY_DEFAULTS.port,
    tokens = [],
    oauth,
    limits = {},
    maxBodyBytes = GATEWAY_DEFAULTS.maxBodyBytes,
    maxUnreadBytes = GATEWAY_DEFAULTS.maxUnreadBytes,
    drainTimeoutMs = GATEWAY_DEFAULTS.drainTimeoutMs,
    maxSessions = GATEWAY_DEFAULTS.maxSessions,
    sessionIdleMs = GATEWAY_DEFAULTS.sessionIdleMs,
    version = packageInfo().version,
    forwarder,
    telemetry,
    adminTools = false,
    adminToken,
    replicaId = newReplicaId(),
    advertiseUrl,
    clusterSecret,
    store,
    stateDir,
    insecureStore = false,
    logger = silentLogger,
    fastPath = true,
    listWaitMs = GATEWAY_DEFAULTS.listWaitMs,
    llmResults = false,
    callerAuthDir,
  } = options;
  if (store !== undefined && clusterSecret === undefined && !insecureStore) throw storeNeedsClusterSecret();
  if (store !== undefined && stateDir !== undefined) throw stateDirWithStore();
  const loopback = LOOPBACK.has(host);
  if (!loopback && tokens.length === 0 && !oauth) throw gatewayNeedsAuth({ host });
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw gatewayOptionInvalid({ option: "port", value: port, expected: "a whole number from 0 to 65535" });
  return {
    bridge,
    host,
    loopback,
    port,
    tokens,
    oauth,
    limits: resolveLimits(limits),
    maxBodyBytes: positiveInteger("maxBodyBytes", maxBodyBytes),
    maxUnreadBytes: positiveInteger("maxUnreadBytes", maxUnreadBytes),
    drainTimeoutMs: duration("drainTimeoutMs", drainTimeoutMs),
    maxSessions: positiveInteger("maxSessions", maxSessions),
    sessionIdleMs: duration("sessionIdleMs", sessionIdleMs),
    version,
    forwarder,
    telemetry,
    adminTools,
    adminToken,
    replica: {
      id: replicaIdOf(replicaId),
      advertiseUrl: advertiseUrl === undefined ? undefined : httpUrl("advertiseUrl", advertiseUrl),
      secret: clusterSecretOf(clusterSecret),
    },
    store: storeUrlOf(store),
    stateDir,
    logger,
    fastPath,
    listWaitMs: duration("listWaitMs", listWaitMs),
    llmResults,
    callerAuthDir,
  };
}

/** Printable and short: it is a store key part and a header value. */
function replicaIdOf(id: string): string {
  if (/^[A-Za-z0-9._:-]{1,128}$/.test(id)) return id;
  throw gatewayOptionInvalid({
    option: "replicaId",
    value: id,
    expected: "1 to 128 letters, digits, '.', '_', ':' or '-'",
  });
}

function httpUrl(option: string, value: string): string {
  const url = URL.parse(value);
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return url.href;
  throw gatewayOptionInvalid({ option, value, expected: "an http:// or https:// URL" });
}

function clusterSecretOf(secret: Uint8Array | undefined): Uint8Array | undefined {
  if (secret === undefined || secret.byteLength >= MIN_CLUSTER_SECRET_BYTES) return secret;
  throw gatewayOptionInvalid({
    option: "clusterSecret",
    value: `${secret.byteLength} bytes`,
    expected: `at least ${MIN_CLUSTER_SECRET_BYTES} bytes`,
  });
}

function storeUrlOf(store: string | undefined): string | undefined {
  if (store === undefined) return undefined;
  const url = URL.parse(store);
  if (url && (url.protocol === "redis:" || url.protocol === "rediss:")) return store;
  throw storeUrlInvalid({ url: store });
}

export interface StdioGatewayOptions {
  /** Version reported in `serverInfo`; default this package's. */
  readonly version?: string;
  readonly telemetry?: Telemetry;
  /** Routes upstream elicitation and sampling to the client (see GatewayOptions.forwarder). */
  readonly forwarder?: RequestForwarder;
  /** Default this process's stdin and stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Longest message line read from stdin; a longer one is answered with an error and skipped. Default 10 MiB. */
  readonly maxMessageBytes?: number;
  /** See GatewayOptions.maxUnreadBytes; twice as much unread closes the channel. */
  readonly maxUnreadBytes?: number;
  /** A problem worth telling the operator (never a message's content). */
  readonly onProblem?: (message: string) => void;
  /** Serve the admin tools (status, reload, restart; see admin-tools.ts). */
  readonly adminTools?: boolean;
  /** See GatewayOptions.fastPath. */
  readonly fastPath?: boolean;
  /** Limits on the channel's one client's tool calls (see GatewayOptions.limits). */
  readonly limits?: GatewayLimits;
  /**
   * The channel's client is the bridge's only client (`serve --stdio`): every upstream log message is
   * forwarded to it, not only those tied to one of its calls. Never for a bridge that serves others too
   * (the daemon's attached sessions, CLI calls): a message could be about another client's work.
   * Default false.
   */
  readonly soleClient?: boolean;
  /** See GatewayOptions.listWaitMs. */
  readonly listWaitMs?: number;
  /** See GatewayOptions.llmResults. */
  readonly llmResults?: boolean;
}

export interface ResolvedStdioGatewayOptions {
  readonly version: string;
  readonly telemetry: Telemetry | undefined;
  readonly forwarder: RequestForwarder | undefined;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly maxMessageBytes: number;
  readonly maxUnreadBytes: number;
  readonly onProblem: (message: string) => void;
  /** The channel's one client's limits, defaulted as the HTTP gateway's per-client limits. */
  readonly limits: ResolvedLimits;
  readonly adminTools: boolean;
  readonly soleClient: boolean;
  readonly fastPath: boolean;
  readonly listWaitMs: number;
  readonly llmResults: boolean;
}

/** The stdio gateway's options, defaulted from GATEWAY_DEFAULTS and each checked once. */
export function resolveStdioGatewayOptions(options: StdioGatewayOptions): ResolvedStdioGatewayOptions {
  const {
    version = packageInfo().version,
    telemetry,
    forwarder,
    stdin = process.stdin,
    stdout = process.stdout,
    maxMessageBytes = GATEWAY_DEFAULTS.maxMessageBytes,
    maxUnreadBytes = GATEWAY_DEFAULTS.maxUnreadBytes,
    onProblem = () => {},
    adminTools = false,
    fastPath = true,
    listWaitMs = GATEWAY_DEFAULTS.listWaitMs,
    limits = {},
    soleClient = false,
    llmResults = false,
  } = options;
  return {
    version,
    telemetry,
    forwarder,
    stdin,
    stdout,
    maxMessageBytes: positiveInteger("maxMessageBytes", maxMessageBytes),
    maxUnreadBytes: positiveInteger("maxUnreadBytes", maxUnreadBytes),
    onProblem,
    limits: resolveLimits(limits),
    adminTools,
    soleClient,
    fastPath,
    listWaitMs: duration("listWaitMs", listWaitMs),
    llmResults,
  };
}

function resolveLimits(limits: GatewayLimits): ResolvedLimits {
  const {
    maxConcurrentCalls = GATEWAY_DEFAULTS.maxConcurrentCalls,
    maxQueuedCalls = GATEWAY_DEFAULTS.maxQueuedCalls,
    callsPerMinute = GATEWAY_DEFAULTS.callsPerMinute,
  } = limits;
  if (callsPerMinute !== undefined && !(Number.isFinite(callsPerMinute) && callsPerMinute > 0))
    throw gatewayOptionInvalid({
      option: "limits.callsPerMinute",
      value: callsPerMinute,
      expected: "a positive number",
    });
  return {
    maxConcurrentCalls: positiveInteger("limits.maxConcurrentCalls", maxConcurrentCalls),
    maxQueuedCalls: wholeNumber("limits.maxQueuedCalls", maxQueuedCalls),
    callsPerMinute,
  };
}

function positiveInteger(option: string, value: number): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw gatewayOptionInvalid({ option, value, expected: "a positive whole number" });
}

/** 0 allowed: no call waits, as before queues existed. */
function wholeNumber(option: string, value: number): number {
  if (Number.isInteger(value) && value >= 0) return value;
  throw gatewayOptionInvalid({ option, value, expected: "0 or a positive whole number" });
}

/** Milliseconds: 0 or more (Infinity allowed: never). */
function duration(option: string, value: number): number {
  if (typeof value === "number" && value >= 0) return value;
  throw gatewayOptionInvalid({ option, value, expected: "0 or more milliseconds" });
}
