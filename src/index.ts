// The public API of mcp-bridge. Everything not exported here is internal.

// --- adapters (vendor-free; the Vercel AI SDK adapter is the `mcp-bridge/ai-sdk` subpath) ---
export type { AnthropicTool } from "./adapters/anthropic.js";
export { toAnthropicTools } from "./adapters/anthropic.js";
export type { CatalogCaller, CatalogOptions, ToolCatalog, ToolCatalogSource } from "./adapters/catalog.js";
export { catalogCaller, catalogTools, definitionTokens, toolCatalog } from "./adapters/catalog.js";
export type {
  AnthropicDeferredOptions,
  AnthropicDeferredTool,
  AnthropicToolSearchTool,
  DeferredOptions,
  ResponsesFunctionTool,
  ResponsesNamespace,
} from "./adapters/deferred.js";
export { toAnthropicDeferredTools, toOpenAIResponsesDeferredTools } from "./adapters/deferred.js";
export type {
  AnthropicToolResultBlock,
  AnthropicToolUse,
  ExecuteOptions,
  OpenAIToolCall,
  OpenAIToolMessage,
} from "./adapters/execute.js";
export { executeAnthropicToolUses, executeOpenAIToolCalls, executeToolCalls } from "./adapters/execute.js";
export type { GeminiFunctionDeclaration, GeminiSchema, GeminiType } from "./adapters/gemini.js";
export { toGeminiTools } from "./adapters/gemini.js";
export type { OpenAITool, OpenAIToolOptions, StrictSchema } from "./adapters/openai.js";
export { fromOpenAIStrictArguments, toOpenAITools, toStrictSchema } from "./adapters/openai.js";
export {
  fromChatCompletion,
  type OpenAISamplingOptions,
  openAISamplingHandler,
  toChatCompletionRequest,
} from "./adapters/openai-sampling.js";
// --- bridge ---
export { McpBridge, startBridge } from "./bridge/bridge.js";
export type { CompleteRef, CompletionResult } from "./bridge/completions.js";
export type { GetPromptOptions, PromptEntry } from "./bridge/prompts.js";
export type {
  ReadResourceOptions,
  ResourceEntry,
  ResourceTemplateEntry,
  ResourceUpdate,
} from "./bridge/resources.js";
export type { SamplingContext, SamplingHandler, SamplingRequest, SamplingResult } from "./bridge/sampling.js";
export type { CompleteOptions } from "./bridge/surface.js";
export type { RequestOptions } from "./bridge/surface-host.js";
export type { SurfaceMethods } from "./bridge/surface-methods.js";
export type {
  Bridge,
  BridgeEventMap,
  BridgeOptions,
  BridgeStats,
  CallOptions,
  ElicitationHandler,
  ElicitationRequest,
  ElicitationResponse,
  LatencyStats,
  Progress,
  RawServers,
  ReloadSummary,
  ToolEntry,
  ToolsChangedEvent,
} from "./bridge/types.js";
export { DEFAULT_RESTART_POLICY, DEFAULT_SETTINGS } from "./config/defaults.js";
export { diffServers, type ServerDiff } from "./config/diff.js";
export { type ImportResult, importLocations, importServers } from "./config/imports.js";
// --- config loading, registry and result helpers for hosts that build their own pipeline ---
export { configSearchPaths, type LoadConfigOptions, loadConfig, type SearchPath } from "./config/load.js";
// --- config ---
export type {
  AdmitProjectServer,
  BridgeSettings,
  ConfigFormat,
  ConfigSource,
  ConfigWarning,
  ImportSourceName,
  ProjectServerRequest,
  RemoteServerDefinition,
  ResolvedConfig,
  RestartPolicy,
  SamplingPolicy,
  ServerDefinition,
  ServerLogLevel,
  StdioServerDefinition,
  ToolFilter,
  TransportKind,
} from "./config/model.js";
export { parseConfigText } from "./config/parse.js";
export { isProjectFile } from "./config/project.js";
export { redactConfig, redactServer } from "./config/redact.js";
export { secretsOf } from "./config/secrets.js";
export { defaultTrustFile, projectServerRequests, TrustStore } from "./config/trust.js";
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
  ServerRequestError,
  ToolExecutionError,
  ToolNotFoundError,
  ToolTimeoutError,
} from "./errors.js";
export { matchesToolFilter } from "./registry/filter.js";
export { flattenParameters } from "./registry/flatten.js";
export {
  baseToolName,
  formatToolName,
  normalizeNamePart,
  normalizeServerPart,
  normalizeToolPart,
  TOOL_NAME_PATTERN,
} from "./registry/naming.js";
export { ToolRegistry, type ToolRegistryOptions } from "./registry/registry.js";
export { type CallOutcome, CallStats } from "./registry/stats.js";
// --- registry and results ---
export type {
  FlatParameter,
  FlatParameters,
  FlatParameterType,
  JsonSchema,
  ToolDefinition,
  ToolFilterCallback,
} from "./registry/types.js";
export { type ArgumentIssue, validateArguments } from "./registry/validate.js";
export { type ConvertOptions, errorToolResult, textForModel, toToolResult } from "./results/convert.js";
export type { PromptMessageEntry, PromptMessages } from "./results/prompt.js";
export type { ResourceContent, ResourcePart } from "./results/resource.js";
export { truncateText } from "./results/truncate.js";
export type { ToolResult } from "./results/types.js";
export { parseDuration } from "./util/duration.js";
export type { LogFields, Logger, LogLevel } from "./util/logger.js";
export { silentLogger } from "./util/logger.js";
export { redactText, redactUrl } from "./util/redact.js";
