import type { ToolEntry } from "../../bridge/api.js";

/** A conversation in a provider-neutral shape; each provider maps it to its own wire format. */
export type AgentMessage =
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string; readonly toolCalls?: readonly AgentToolCall[] }
  | {
      readonly role: "tool";
      readonly toolCallId: string;
      readonly name: string;
      readonly content: string;
      readonly isError: boolean;
    };

/** A tool call as the model made it: `arguments` is the model's raw JSON text. */
export interface AgentToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface ModelRequest {
  readonly system?: string;
  readonly messages: readonly AgentMessage[];
  readonly tools: readonly ToolEntry[];
  readonly signal?: AbortSignal;
  /** Output token cap of this request (a server's sampling request); default: the provider's. */
  readonly maxTokens?: number;
}

/** What a model stream yields: text as it arrives, then complete tool calls, then the end. */
export type ModelEvent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_call"; readonly call: AgentToolCall }
  | { readonly type: "done"; readonly stopReason: string }
  /** Tokens the request took, when the endpoint says (OpenAI `usage`, Anthropic `message_*.usage`). */
  | { readonly type: "usage"; readonly usage: TokenUsage };

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A model behind some vendor's streaming API. */
export interface ModelProvider {
  readonly name: string;
  readonly model: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export interface ProviderOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly model: string;
  /** Extra headers (Azure's `api-key`, an org header, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly fetch?: typeof fetch;
  /** Output token cap per request (Anthropic requires one; default 4096). */
  readonly maxTokens?: number;
}
