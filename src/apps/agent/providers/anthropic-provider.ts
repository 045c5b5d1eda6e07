import { toAnthropicTools } from "../../../adapters/anthropic.js";
import { modelReportedError, modelStreamIncomplete } from "../../../errors/model-errors.js";
import type {
  AgentMessage,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  ProviderOptions,
} from "../model-provider.js";
import { parseEventJson, postForEvents } from "./model-http.js";

export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The Anthropic Messages API with `stream: true`: text arrives as `text_delta`s, a tool call as a
 * `tool_use` block whose input streams as `input_json_delta` fragments until its block stops.
 */
export function createAnthropicProvider(options: ProviderOptions): ModelProvider {
  const base = options.baseUrl.replace(/\/+$/, "");
  return {
    name: "anthropic",
    model: options.model,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const tools = toAnthropicTools(request.tools);
      // Sent as JSON: a field left undefined is absent on the wire.
      const body = {
        model: options.model,
        max_tokens: request.maxTokens ?? options.maxTokens ?? 4096,
        stream: true,
        system: request.system || undefined,
        messages: toAnthropicMessages(request.messages),
        tools: tools.length > 0 ? tools : undefined,
      };
      const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION, ...options.headers };
      if (options.apiKey) headers["x-api-key"] = options.apiKey;
      const blocks = new Map<number, { id: string; name: string; json: string }>();
      let stopReason = "end_turn";
      let stopped = false;
      // message_start has the input tokens (cache reads and writes count too); message_delta the output's.
      let inputTokens = 0;
      let outputTokens: number | undefined;
      for await (const event of postForEvents("Anthropic", `${base}/v1/messages`, {
        headers,
        body,
        signal: request.signal,
        fetch: options.fetch,
      })) {
        const data = parseEventJson("Anthropic", event.data);
        switch (data.type) {
          case "message_start": {
            const usage = (data.message as { usage?: Record<string, unknown> } | undefined)?.usage ?? {};
            for (const key of ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"]) {
              const value = usage[key];
              if (typeof value === "number") inputTokens += value;
            }
            break;
          }
          case "content_block_start": {
            const block = data.content_block as { type?: string; id?: string; name?: string } | undefined;
            if (block?.type === "tool_use") {
              blocks.set(Number(data.index), { id: block.id ?? "", name: block.name ?? "", json: "" });
            }
            break;
          }
          case "content_block_delta": {
            const delta = data.delta as { type?: string; text?: string; partial_json?: string } | undefined;
            if (delta?.type === "text_delta" && delta.text) yield { type: "text", text: delta.text };
            else if (delta?.type === "input_json_delta") {
              const block = blocks.get(Number(data.index));
              if (block) block.json += delta.partial_json ?? "";
            }
            break;
          }
          case "content_block_stop": {
            const block = blocks.get(Number(data.index));
            if (block) {
              blocks.delete(Number(data.index));
              yield {
                type: "tool_call",
                call: {
                  id: block.id || `toolu_${String(data.index)}`,
                  name: block.name,
                  arguments: block.json || "{}",
                },
              };
            }
            break;
          }
          case "message_delta": {
            const reason = (data.delta as { stop_reason?: string } | undefined)?.stop_reason;
            if (reason) stopReason = reason;
            const output = (data.usage as { output_tokens?: unknown } | undefined)?.output_tokens;
            if (typeof output === "number") outputTokens = output;
            break;
          }
          case "message_stop":
            stopped = true;
            break;
          case "error": {
            const error = data.error as { type?: string; message?: string } | undefined;
            throw modelReportedError({
              provider: "Anthropic",
              type: error?.type,
              message: error?.message ?? "no message",
            });
          }
        }
        if (stopped) break;
      }
      if (!stopped) throw modelStreamIncomplete();
      if (outputTokens !== undefined) yield { type: "usage", usage: { inputTokens, outputTokens } };
      yield { type: "done", stopReason };
    },
  };
}

/** Tool results go back as `tool_result` blocks in one user message, as the Messages API requires. */
export function toAnthropicMessages(messages: readonly AgentMessage[]): unknown[] {
  const out: { role: string; content: unknown }[] = [];
  for (const message of messages) {
    if (message.role === "user") out.push({ role: "user", content: message.content });
    else if (message.role === "assistant") {
      const content: unknown[] = message.content ? [{ type: "text", text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        content.push({ type: "tool_use", id: call.id, name: call.name, input: parseInput(call.arguments) });
      }
      out.push({ role: "assistant", content: content.length > 0 ? content : [{ type: "text", text: "" }] });
    } else {
      const block = {
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: message.content,
        is_error: message.isError,
      };
      const last = out.at(-1);
      if (last?.role === "user" && Array.isArray(last.content)) last.content.push(block);
      else out.push({ role: "user", content: [block] });
    }
  }
  return out;
}

function parseInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || "{}");
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
