import type { Tool } from "ai";
import type { CallOptions, ToolEntry } from "../bridge/api.js";
import { peerModuleMissing } from "../errors/module-errors.js";
import { textForModel } from "../results/convert.js";
import { objectSchema } from "./anthropic.js";

/**
 * `ai` is an optional peer dependency: loaded here rather than by a static import, so a host without
 * it gets MODULE_LOAD_FAILED naming this part and what to install, not Node's bare ERR_MODULE_NOT_FOUND.
 */
async function loadAi(): Promise<typeof import("ai")> {
  try {
    return await import("ai");
  } catch (cause) {
    const detail = cause instanceof Error ? (cause.message.split("\n")[0] ?? "") : String(cause);
    throw peerModuleMissing({ part: "mcp-bridge/ai-sdk", peer: "ai", detail, cause });
  }
}

const { jsonSchema, tool } = await loadAi();

/** Call options for every tool; the signal comes from the AI SDK and failures always become results. */
export type AiSdkToolOptions = Omit<CallOptions, "signal" | "onError">;

/**
 * Vercel AI SDK tools (`generateText({ tools })`), keyed by exposed name, each executing through the
 * bridge. Exposed only as the `mcp-bridge/ai-sdk` subpath, so hosts without `ai` never load it.
 *
 * `execute` resolves to the result text (truncated, with media as placeholders): a plain string is
 * what every AI SDK version since 5 turns into a text tool result for any provider. A failed call
 * resolves to text starting with `Error:` rather than throwing into the SDK's loop, so the model can
 * react.
 */
export function toAiSdkTools(
  entries: readonly ToolEntry[],
  options: AiSdkToolOptions = {},
): Record<string, Tool<Record<string, unknown>, string>> {
  const tools: Record<string, Tool<Record<string, unknown>, string>> = {};
  for (const entry of entries) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(
        objectSchema(entry.inputSchema) as Parameters<typeof jsonSchema>[0],
      ),
      execute: async (args: Record<string, unknown>, { abortSignal }: { abortSignal?: AbortSignal }) => {
        const result = await entry.call(args ?? {}, { ...options, onError: "result", signal: abortSignal });
        return textForModel(result);
      },
    });
  }
  return tools;
}
