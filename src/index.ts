// The public API of mcp-bridge. Everything not exported here is internal.

// --- bridge ---
export { McpBridge, startBridge } from "./bridge/bridge.js";
export type {
  Bridge,
  BridgeEventMap,
  BridgeOptions,
  BridgeStats,
  CallOptions,
  LatencyStats,
  Progress,
  RawServers,
  ReloadSummary,
  ToolEntry,
  ToolsChangedEvent,
} from "./bridge/types.js";
export { DEFAULT_RESTART_POLICY, DEFAULT_SETTINGS } from "./config/defaults.js";
// --- config ---
export type {
  BridgeSettings,
  ConfigFormat,
  ConfigSource,
  ConfigWarning,
  ImportSourceName,
  RemoteServerDefinition,
  ResolvedConfig,
  RestartPolicy,
  ServerDefinition,
  StdioServerDefinition,
  ToolFilter,
  TransportKind,
} from "./config/model.js";
// --- connection ---
export type { ServerState, ServerStatus } from "./connection/status.js";
// --- core ---
export {
  AbortError,
  ConfigError,
  ErrorCode,
  InvalidArgumentsError,
  isMcpBridgeError,
  McpBridgeError,
  ServerConnectionError,
  ServerCrashedError,
  ToolExecutionError,
  ToolNotFoundError,
  ToolTimeoutError,
} from "./errors.js";
// --- registry and results ---
export type {
  FlatParameter,
  FlatParameters,
  FlatParameterType,
  JsonSchema,
  ToolDefinition,
  ToolFilterCallback,
} from "./registry/types.js";
export type { ToolResult } from "./results/types.js";
export type { LogFields, Logger, LogLevel } from "./util/logger.js";
export { silentLogger } from "./util/logger.js";
