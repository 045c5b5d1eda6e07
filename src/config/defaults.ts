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
};
