export type { AgentEvent, AgentOptions, ApproveToolCall, TurnResult } from "./agent.js";
export { Agent, DEFAULT_MAX_STEPS } from "./agent.js";
export { createAnthropicProvider } from "./providers/anthropic.js";
export { createOpenAIProvider } from "./providers/openai.js";
export { chooseProvider, type ProviderChoice, providerFromEnvironment } from "./select.js";
export type { SseEvent } from "./sse.js";
export { readSse, SseParser } from "./sse.js";
export type {
  AgentMessage,
  AgentToolCall,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ProviderOptions,
  TokenUsage,
} from "./types.js";
