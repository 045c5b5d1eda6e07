import type { SamplingHandler, SamplingRequest, SamplingResult } from "../bridge/sampling.js";
import {
  samplingHttp,
  samplingNoMessage,
  samplingNoModel,
  samplingNotJson,
  samplingTooLarge,
  samplingUnreachable,
} from "../errors/index.js";
import { errorText, textOf } from "../util/text-of.js";

export interface OpenAISamplingOptions {
  /** Default: `OPENAI_BASE_URL`, else https://api.openai.com/v1. */
  readonly baseUrl?: string;
  /** Default: `OPENAI_API_KEY` (never logged or put in an error message). */
  readonly apiKey?: string;
  /** Default: `OPENAI_MODEL`, else the first of the server's model hints. */
  readonly model?: string;
  /** Where the defaults are read; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly fetch?: typeof fetch;
  /** Largest response body read, in bytes (default 8 MiB). */
  readonly maxResponseBytes?: number;
}

type ChatMessage = Record<string, unknown>;

/**
 * A ready `onSampling` handler: fulfils `sampling/createMessage` through any OpenAI-compatible Chat
 * Completions endpoint, tool use included (the server's tools become functions; `tool_calls` come back
 * as `tool_use` blocks).
 */
export function openAISamplingHandler(options: OpenAISamplingOptions = {}): SamplingHandler {
  const env = options.env ?? process.env;
  const baseUrl = (options.baseUrl ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const apiKey = options.apiKey ?? env.OPENAI_API_KEY;
  const fixedModel = options.model ?? env.OPENAI_MODEL;
  const doFetch = options.fetch ?? fetch;
  const maxBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  return async (request, { server, signal }) => {
    const model = fixedModel ?? request.modelPreferences?.hints?.find((hint) => hint.name)?.name;
    if (!model) {
      throw samplingNoModel({ server });
    }
    const body = toChatCompletionRequest(request, model);
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw samplingUnreachable({ server, baseUrl, detail: errorText(error), cause: error });
    }
    const text = await readCapped(response, maxBytes);
    if (!response.ok) {
      throw samplingHttp({ server, status: response.status, body: text });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw samplingNotJson({ server });
    }
    return fromChatCompletion(parsed, model, server);
  };
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw samplingTooLarge({ maxBytes });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** MCP sampling request to a Chat Completions request body. Pure. */
export function toChatCompletionRequest(request: SamplingRequest, model: string): Record<string, unknown> {
  const messages: ChatMessage[] = [];
  if (request.systemPrompt) messages.push({ role: "system", content: request.systemPrompt });
  for (const message of request.messages) {
    const blocks = (Array.isArray(message.content) ? message.content : [message.content]) as Record<
      string,
      unknown
    >[];
    const parts: Record<string, unknown>[] = [];
    const toolCalls: Record<string, unknown>[] = [];
    for (const block of blocks) {
      switch (block.type) {
        case "text":
          parts.push({ type: "text", text: textOf(block.text ?? "") });
          break;
        case "image":
          parts.push({
            type: "image_url",
            image_url: { url: `data:${textOf(block.mimeType)};base64,${textOf(block.data)}` },
          });
          break;
        case "audio":
          parts.push({
            type: "input_audio",
            input_audio: { data: textOf(block.data), format: textOf(block.mimeType).split("/")[1] ?? "wav" },
          });
          break;
        case "tool_use":
          toolCalls.push({
            id: textOf(block.id),
            type: "function",
            function: { name: textOf(block.name), arguments: JSON.stringify(block.input ?? {}) },
          });
          break;
        case "tool_result": {
          const content = Array.isArray(block.content) ? (block.content as Record<string, unknown>[]) : [];
          const text = content.map((part) =>
            part.type === "text" ? textOf(part.text) : `[${textOf(part.type)}]`,
          );
          messages.push({ role: "tool", tool_call_id: textOf(block.toolUseId), content: text.join("\n") });
          break;
        }
        default:
          break;
      }
    }
    if (toolCalls.length > 0) {
      messages.push({ role: "assistant", content: partsText(parts), tool_calls: toolCalls });
    } else if (parts.length > 0) {
      const onlyText = parts.every((part) => part.type === "text");
      messages.push({ role: message.role, content: onlyText ? partsText(parts) : parts });
    }
  }
  const tools = request.tools?.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.inputSchema,
    },
  }));
  return {
    model,
    messages,
    max_tokens: request.maxTokens,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences?.length ? { stop: request.stopSequences } : {}),
    ...(tools?.length ? { tools } : {}),
    ...(tools?.length && request.toolChoice?.mode ? { tool_choice: request.toolChoice.mode } : {}),
  };
}

function partsText(parts: readonly Record<string, unknown>[]): string {
  return parts
    .filter((part) => part.type === "text")
    .map((part) => textOf(part.text))
    .join("\n");
}

const STOP_REASONS: Record<string, string> = {
  stop: "endTurn",
  length: "maxTokens",
  tool_calls: "toolUse",
  function_call: "toolUse",
};

/** A Chat Completions response to an MCP sampling result. Pure; a malformed answer is a typed error. */
export function fromChatCompletion(response: unknown, model: string, server: string): SamplingResult {
  const choice = (response as { choices?: unknown[] } | null)?.choices?.[0] as
    | { message?: { content?: unknown; tool_calls?: unknown[] }; finish_reason?: unknown }
    | undefined;
  if (!choice?.message) {
    throw samplingNoMessage({ server });
  }
  const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : "stop";
  const stopReason = STOP_REASONS[finish] ?? finish;
  const answeredModel = (response as { model?: unknown }).model;
  const toolCalls = Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : [];
  const text = typeof choice.message.content === "string" ? choice.message.content : "";
  const base = {
    role: "assistant" as const,
    model: typeof answeredModel === "string" ? answeredModel : model,
  };
  if (toolCalls.length === 0) return { ...base, stopReason, content: { type: "text", text } };
  const content: Record<string, unknown>[] = text ? [{ type: "text", text }] : [];
  for (const raw of toolCalls) {
    const call = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    let input: unknown = {};
    try {
      input = JSON.parse(textOf(call.function?.arguments ?? "{}"));
    } catch {
      input = { _raw: textOf(call.function?.arguments) };
    }
    content.push({
      type: "tool_use",
      id: textOf(call.id ?? ""),
      name: textOf(call.function?.name ?? ""),
      input: input && typeof input === "object" && !Array.isArray(input) ? input : { value: input },
    });
  }
  return { ...base, stopReason: "toolUse", content } as SamplingResult;
}
