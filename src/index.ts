// The public API of mcp-bridge: what a host needs to start servers, hand their tools to a model and
// run the model's calls. Any name added here becomes public API: test/public-exports.test.ts lists
// every name of every entry point, so a change is deliberate (and goes in CHANGELOG.md).
// Other entry points: `mcp-bridge/adapters` (tool search meta-tools, deferred-loading vendor formats,
// OpenAI sampling and strict-schema helpers), `mcp-bridge/ai-sdk`, `mcp-bridge/agent`,
// `mcp-bridge/gateway`.

// --- vendor formats and running a model's tool calls ---
export type { AnthropicTool } from "./adapters/anthropic.js";
export { toAnthropicTools } from "./adapters/anthropic.js";
export type {
  AnthropicToolResultBlock,
  ExecuteOptions,
  OpenAIToolCall,
  OpenAIToolMessage,
} from "./adapters/execute.js";
// The functions that run code load it on first use (the *-entry.ts files): the import stays light.
export {
  executeAnthropicToolUses,
  executeOpenAIToolCalls,
  executeToolCalls,
} from "./adapters/execute-entry.js";
export type { GeminiFunctionDeclaration } from "./adapters/gemini.js";
export { toGeminiTools } from "./adapters/gemini.js";
export type { OpenAITool, OpenAIToolOptions } from "./adapters/openai.js";
export { toOpenAITools } from "./adapters/openai.js";
// --- auth (the `auth` option of BridgeOptions) ---
export type { AuthOptions } from "./auth/oauth-client.js";
export type {
  ApprovalAnswer,
  ApprovalChannel,
  ApprovalClient,
  ApproveCall,
  Bridge,
  BridgeEventMap,
  BridgeOptions,
  BridgeStats,
  CallApprovalRequest,
  CallOptions,
  CallUpstream,
  ElicitationHandler,
  ElicitationRequest,
  ElicitationResponse,
  PinDrift,
  PinDriftEvent,
  PinReport,
  Progress,
  ReloadSummary,
  ToolEntry,
  ToolsChangedEvent,
  UpstreamCallOptions,
} from "./bridge/api.js";
// --- the bridge ---
export { McpBridge, startBridge } from "./bridge/bridge-entry.js";
export type { CompleteOptions } from "./bridge/features/bridge-features.js";
export type { CompleteRef, CompletionResult } from "./bridge/features/completions.js";
export type { RequestOptions } from "./bridge/features/feature-context.js";
export type { ServerLogMessage } from "./bridge/features/logging.js";
export type { GetPromptOptions, PromptEntry } from "./bridge/features/prompts.js";
export type {
  ReadResourceOptions,
  ResourceEntry,
  ResourceTemplateEntry,
  ResourceUpdate,
} from "./bridge/features/resources.js";
export type { SamplingContext, SamplingHandler } from "./bridge/features/sampling.js";
export type { LoadedSkill, LoadSkillOptions, SkillEntry } from "./bridge/features/skills.js";
// --- servers given in code (a `connect` function in place of `command` or `url`) ---
export { inMemoryServer } from "./config/in-memory-server.js";
export type { InputRequest } from "./config/inputs.js";
export type { LoadConfigOptions } from "./config/load.js";
// --- config: reading the config without starting anything ---
export { loadConfig } from "./config/load-config-entry.js";
export type {
  ConnectServer,
  ProjectServerRequest,
  ResolvedConfig,
  ServerDefinition,
} from "./config/model.js";
// --- server status ---
export type { ServerState, ServerStatus } from "./connection/server-status.js";
// --- errors: branch on `code`; the subclasses carry the fields of their situation ---
export {
  ConfigError,
  ErrorCode,
  InvalidArgumentsError,
  isMcpBridgeError,
  McpBridgeError,
  type McpBridgeErrorFields,
  ServerConnectionError,
  ServerRequestError,
  SkillVerificationError,
  ToolChangedError,
  ToolExecutionError,
  ToolTimeoutError,
} from "./errors/index.js";
// --- tools and results ---
export type { FlatParameters, ToolDefinition } from "./registry/tool-definition.js";
export type { PromptMessages } from "./results/prompt-messages.js";
export type { ResourceContent } from "./results/resource.js";
export type { ToolResult } from "./results/tool-result.js";
export type { ToolSearchOptions } from "./search/tool-search.js";
// --- logging ---
export type { Logger } from "./util/logger.js";
