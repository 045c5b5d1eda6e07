import { toOpenAITools } from "../../../adapters/openai.js";
import { modelReportedError, modelStreamIncomplete } from "../../../errors/model-errors.js";
import type {
  AgentMessage,
  AgentToolCall,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ProviderOptions,
} from "../model-provider.js";
import { parseEventJson, postForEvents } from "./model-http.js";

/**
 * OpenAI-compatible Chat Completions with `stream: true` (OpenAI, Azure OpenAI, Ollama, LM Studio,
 * vLLM, llama.cpp server). Tool call deltas arrive in pieces keyed by `index` (id and name first,
 * then argument fragments); a call is complete when the stream finishes.
 */
export function createOpenAIProvider(options: ProviderOptions): ModelProvider {
  const base = options.baseUrl.replace(/\/+$/, "");
  return {
    name: "openai",
    model: options.model,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const tools = toOpenAITools(request.tools);
      const body = {
        model: options.model,
        stream: true,
        // The token counts come in a last chunk of their own (choices empty) before [DONE].
        stream_options: { include_usage: true },
        messages: toOpenAIMessages(request.system, request.messages),
        // Sent as JSON: a field left undefined is absent on the wire.
        tools: tools.length > 0 ? tools : undefined,
        max_tokens: request.maxTokens || options.maxTokens || undefined,
      };
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      const calls = new Map<number, { id: string; name: string; arguments: string }>();
      let stopReason = "stop";
      let finished = false;
      for await (const event of postForEvents("OpenAI-compatible", `${base}/chat/completions`, {
        headers,
        body,
        signal: request.signal,
        fetch: options.fetch,
      })) {
        if (event.data === "[DONE]") {
          finished = true;
          break;
        }
        const chunk = parseEventJson("OpenAI-compatible", event.data);
        if (chunk.error) {
          const message = (chunk.error as { message?: string }).message ?? JSON.stringify(chunk.error);
          throw modelReportedError({ message });
        }
        const usage = chunk.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
        if (usage && typeof usage.prompt_tokens === "number" && typeof usage.completion_tokens === "number")
          yield {
            type: "usage",
            usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens },
          };
        const choice = (chunk.choices as { delta?: Delta; finish_reason?: string | null }[] | undefined)?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        if (typeof delta.content === "string" && delta.content) yield { type: "text", text: delta.content };
        for (const part of delta.tool_calls ?? []) {
          const index = typeof part.index === "number" ? part.index : calls.size;
          const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
          calls.set(index, call);
        }
        if (choice.finish_reason) {
          stopReason = choice.finish_reason;
          finished = true;
        }
      }
      if (!finished && calls.size === 0) {
        throw modelStreamIncomplete();
      }
      for (const [index, call] of [...calls].sort((a, b) => a[0] - b[0])) {
        yield {
          type: "tool_call",
          call: { ...call, id: call.id || `call_${index}` } satisfies AgentToolCall,
        };
      }
      yield { type: "done", stopReason };
    },
  };
}

interface Delta {
  content?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

export function toOpenAIMessages(system: string | undefined, messages: readonly AgentMessage[]): unknown[] {
  const out: unknown[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    if (message.role === "user") out.push({ role: "user", content: message.content });
    else if (message.role === "assistant") {
      out.push({
        role: "assistant",
        content: message.content || null,
        // Sent as JSON: no tool_calls field at all when there are none.
        tool_calls: message.toolCalls?.length
          ? message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments || "{}" },
            }))
          : undefined,
      });
    } else out.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
  }
  return out;
}
