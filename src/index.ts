// The public API of mcp-bridge: what a host needs to start servers, hand their tools to a model and
// run the model's calls. Building blocks for hosts that assemble their own pipeline (naming, registry,
// validation, result conversion, config parsing, redaction) are the `mcp-bridge/internals` subpath,
// with no stability promise. test/public-exports.test.ts lists these names: changing them is deliberate.

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
// --- auth (the `auth` option of BridgeOptions) ---
export type { AuthOptions } from "./auth/index.js";
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
  ResultOptions,
  ToolEntry,
  ToolsChangedEvent,
} from "./bridge/api.js";
// --- bridge ---
export { McpBridge, startBridge } from "./bridge/bridge.js";
export type { CompleteRef, CompletionResult } from "./bridge/completions.js";
export type { ServerLogMessage } from "./bridge/logging.js";
export type { GetPromptOptions, PromptEntry } from "./bridge/prompts.js";
export type {
  ReadResourceOptions,
  ResourceEntry,
  ResourceTemplateEntry,
  ResourceUpdate,
} from "./bridge/resources.js";
export type { SamplingContext, SamplingHandler, SamplingRequest, SamplingResult } from "./bridge/sampling.js";
export type {
  LoadedSkill,
  LoadSkillOptions,
  SkillEntry,
  SkillFile,
  SkillFileEntry,
} from "./bridge/skills.js";
export type { CompleteOptions } from "./bridge/surface.js";
export type { RequestOptions } from "./bridge/surface-host.js";
export type { SurfaceMethods } from "./bridge/surface-methods.js";
// --- config: reading the config without starting anything, and the shapes BridgeOptions uses ---
export type { InputRequest, ResolveInput } from "./config/inputs.js";
export { configSearchPaths, type LoadConfigOptions, loadConfig, type SearchPath } from "./config/load.js";
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
  SkippedServer,
  StdioServerDefinition,
  ToolFilter,
  TransportKind,
} from "./config/model.js";
// --- connection ---
export type { ServerInfo, ServerState, ServerStatus } from "./connection/server-status.js";
// --- errors ---
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
  SkillVerificationError,
  ToolExecutionError,
  ToolNotFoundError,
  ToolTimeoutError,
} from "./errors/index.js";
// --- registry and results: the shapes of tools and results ---
export { TOOL_NAME_PATTERN } from "./registry/naming.js";
export type {
  FlatParameter,
  FlatParameters,
  FlatParameterType,
  JsonSchema,
  ToolDefinition,
  ToolFilterCallback,
} from "./registry/types.js";
export type { PromptMessageEntry, PromptMessages } from "./results/prompt.js";
export type { ResourceContent, ResourcePart } from "./results/resource.js";
export type { ToolResult } from "./results/types.js";
export type { ToolSearchOptions } from "./search/index.js";
export type {
  MeterProviderLike,
  TelemetryOptions,
  TelemetrySetting,
  TracerProviderLike,
} from "./telemetry/types.js";
// --- logging ---
export type { LogFields, Logger, LogLevel } from "./util/logger.js";
export { silentLogger } from "./util/logger.js";
