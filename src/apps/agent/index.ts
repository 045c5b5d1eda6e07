// `mcp-bridge/agent`: the agent loop (a model calling the bridge's tools until it answers), the
// providers for OpenAI-compatible and Anthropic endpoints, and the types a host writes its own
// provider or event handler with.
export type { AgentEvent, AgentOptions, ApproveToolCall, TurnResult } from "./agent.js";
export { Agent } from "./agent.js";
export type {
  AgentMessage,
  AgentToolCall,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ProviderOptions,
  TokenUsage,
} from "./model-provider.js";
export { createAnthropicProvider } from "./providers/anthropic-provider.js";
export { createOpenAIProvider } from "./providers/openai-provider.js";
export { chooseProvider, type ProviderChoice, providerFromEnvironment } from "./select-provider.js";
