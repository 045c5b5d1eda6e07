import { lazyImport } from "../util/lazy-import.js";
import type * as Execute from "./execute.js";

/**
 * The execute functions as the library's entry exports them: running a model's calls needs the
 * results code and the bridge's diagnostics, loaded on the first call rather than at import time.
 */
const execute = lazyImport("the tool-call executor", () => import("./execute.js"));

/** See execute.ts: runs OpenAI tool calls concurrently; never throws for a failed tool. */
export async function executeOpenAIToolCalls(
  ...args: Parameters<typeof Execute.executeOpenAIToolCalls>
): Promise<Execute.OpenAIToolMessage[]> {
  return (await execute()).executeOpenAIToolCalls(...args);
}

/** See execute.ts: runs Anthropic `tool_use` blocks concurrently; never throws for a failed tool. */
export async function executeAnthropicToolUses(
  ...args: Parameters<typeof Execute.executeAnthropicToolUses>
): Promise<Execute.AnthropicToolResultBlock[]> {
  return (await execute()).executeAnthropicToolUses(...args);
}

/** Either shape: OpenAI tool calls or Anthropic content blocks. */
export async function executeToolCalls(
  ...args: Parameters<typeof Execute.executeToolCalls>
): Promise<Execute.OpenAIToolMessage[] | Execute.AnthropicToolResultBlock[]> {
  return (await execute()).executeToolCalls(...args);
}
