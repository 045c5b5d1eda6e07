// `mcp-bridge/adapters`: the secondary adapters, for hosts that need more than the vendor formats of
// the main entry: the tool-search meta-tools (a model searches a large catalog, then calls what it
// found), vendor formats where the vendor defers tool loading itself, OpenAI strict-mode schemas, and
// a sampling handler over an OpenAI-compatible endpoint. Vendor-free: no SDK of a vendor is loaded.

export type {
  AnthropicDeferredOptions,
  AnthropicDeferredTool,
  AnthropicToolSearchTool,
  DeferredOptions,
  ResponsesFunctionTool,
  ResponsesNamespace,
} from "./deferred.js";
export { toAnthropicDeferredTools, toOpenAIResponsesDeferredTools } from "./deferred.js";
export type { StrictSchema } from "./openai.js";
export { fromOpenAIStrictArguments, toStrictSchema } from "./openai.js";
export {
  fromChatCompletion,
  type OpenAISamplingOptions,
  openAISamplingHandler,
  toChatCompletionRequest,
} from "./openai-sampling.js";
export type { CatalogCaller, CatalogOptions, ToolCatalog, ToolCatalogSource } from "./search-tools.js";
export { catalogCaller, catalogTools, definitionTokens, toolCatalog } from "./search-tools.js";
