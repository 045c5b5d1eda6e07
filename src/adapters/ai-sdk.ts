import { jsonSchema, type Tool, tool } from "ai";
import type { ToolEntry } from "../bridge/types.js";
import { objectSchema } from "./anthropic.js";

/**
 * Vercel AI SDK tools (`generateText({ tools })`), keyed by exposed name, each executing through the
 * bridge. Exposed as the `mcp-bridge/ai-sdk` subpath so that only hosts using `ai` load it. A failed
 * call resolves to the error text the model should read rather than throwing into the SDK's loop.
 */
export function toAiSdkTools(entries: readonly ToolEntry[]): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const entry of entries) {
    tools[entry.name] = tool({
      description: entry.description,
      inputSchema: jsonSchema(objectSchema(entry.inputSchema) as Parameters<typeof jsonSchema>[0]),
      execute: async (args: unknown, { abortSignal }: { abortSignal?: AbortSignal }) => {
        const result = await entry.call(args as Record<string, unknown>, {
          onError: "result",
          ...(abortSignal ? { signal: abortSignal } : {}),
        });
        return result.text;
      },
    });
  }
  return tools;
}
