import type { BridgeSettings, RestartPolicy } from "./model.js";

/** Every default in one place. */
export const DEFAULT_SETTINGS: BridgeSettings = {
  enabled: true,
  toolNameFormat: "mcp_{server}_{tool}",
  descriptionPrefix: "[MCP:{server}] ",
  maxResultChars: 5000,
  startupTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  healthCheckIntervalMs: 30_000,
  autoReload: false,
  imports: [],
};

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  enabled: true,
  maxAttempts: 5,
  initialDelayMs: 250,
  maxDelayMs: 30_000,
  stablePeriodMs: 10_000,
  /** Background retries of an unreachable remote server: at least every 5 minutes. */
  retryCeilingMs: 300_000,
};

/** Library options of `startBridge` that are plain values (see bridge/options.ts for the rest). */
export const DEFAULT_BRIDGE_OPTIONS = {
  /** `start()` resolves once every enabled server is connected or failed. */
  wait: true,
  onError: "throw",
  validateArguments: false,
  enforceRequired: true,
  reservedToolNames: [],
} as const;

/**
 * Bytes kept of each string of an oversized stdio message: comfortably more than a result will show
 * (8 bytes per result character, at least 1 MiB), so truncation, not the transport, decides what is cut.
 */
export const STRING_CAP = { minBytes: 1024 * 1024, bytesPerResultChar: 8 } as const;

/**
 * Stopping a stdio server: how long it may take to exit after its stdin is closed, then after SIGTERM,
 * before its process group is killed.
 */
export const PROCESS_STOP = { stdinGraceMs: 1000, termGraceMs: 1000 } as const;

/** The audit log (config `audit`): it rotates when the file would pass `maxBytes`. */
export const AUDIT_LOG = { maxBytes: 10 * 1024 * 1024 } as const;

/** Quiet period after a change of the watched config file before `autoReload` reloads it. */
export const AUTO_RELOAD_DEBOUNCE_MS = 200;

/**
 * The catalog cache (bridge/catalog-cache.ts): the file format's version (a file of another version
 * is ignored and rewritten), how long a listing is used without a `ttlMs` from the server, and the
 * largest file read or written (a catalog of tens of thousands of tools fits).
 */
export const CATALOG_CACHE = {
  format: 1,
  maxAgeMs: 7 * 24 * 3600_000,
  maxFileBytes: 64 * 1024 * 1024,
} as const;
