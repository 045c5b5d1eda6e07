import { ErrorCode, McpBridgeError } from "../errors.js";
import { createAnthropicProvider } from "./providers/anthropic.js";
import { createOpenAIProvider } from "./providers/openai.js";
import type { ModelProvider } from "./types.js";

/** What picks the model: flags or config first, then the usual environment variables. */
export interface ProviderChoice {
  readonly provider?: "openai" | "anthropic";
  readonly baseUrl?: string;
  readonly model?: string;
  /** The name of the environment variable that holds the key (never the key itself in a config). */
  readonly apiKeyEnv?: string;
  readonly maxTokens?: number;
}

/**
 * The model provider from explicit choices and the environment: `OPENAI_BASE_URL`, `OPENAI_API_KEY`,
 * `OPENAI_MODEL` for OpenAI-compatible endpoints, `ANTHROPIC_API_KEY` (`ANTHROPIC_BASE_URL`,
 * `ANTHROPIC_MODEL`) for Anthropic. Without a provider named, Anthropic is chosen when only its key
 * is set. A missing key or model is a USAGE error saying which variable to set.
 */
export function providerFromEnvironment(
  choice: ProviderChoice,
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider {
  const kind =
    choice.provider ??
    (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL ? "anthropic" : "openai");
  if (kind === "anthropic") {
    const apiKey = env[choice.apiKeyEnv ?? "ANTHROPIC_API_KEY"];
    if (!apiKey) throw usage(`Set ${choice.apiKeyEnv ?? "ANTHROPIC_API_KEY"} to use the Anthropic provider.`);
    const model = choice.model ?? env.ANTHROPIC_MODEL;
    if (!model) throw usage("Name the model with --model or ANTHROPIC_MODEL.");
    return createAnthropicProvider({
      baseUrl: choice.baseUrl ?? env.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com",
      apiKey,
      model,
      ...(choice.maxTokens ? { maxTokens: choice.maxTokens } : {}),
    });
  }
  const baseUrl = choice.baseUrl ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
  const apiKey = env[choice.apiKeyEnv ?? "OPENAI_API_KEY"];
  // Local servers (Ollama, LM Studio, llama.cpp) need no key; api.openai.com does.
  if (!apiKey && /api\.openai\.com/.test(baseUrl)) {
    throw usage(
      `Set ${choice.apiKeyEnv ?? "OPENAI_API_KEY"} (and OPENAI_BASE_URL for another OpenAI-compatible endpoint).`,
    );
  }
  const model = choice.model ?? env.OPENAI_MODEL;
  if (!model) throw usage("Name the model with --model or OPENAI_MODEL.");
  return createOpenAIProvider({
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    model,
    ...(choice.maxTokens ? { maxTokens: choice.maxTokens } : {}),
  });
}

function usage(message: string): McpBridgeError {
  return new McpBridgeError(ErrorCode.Usage, message);
}
