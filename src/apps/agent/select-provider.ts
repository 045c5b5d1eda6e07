import { modelChoiceMissing, modelListHttp } from "../../errors/model-errors.js";
import type { ModelProvider } from "./model-provider.js";
import { createAnthropicProvider } from "./providers/anthropic-provider.js";
import { createOpenAIProvider } from "./providers/openai-provider.js";

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
      maxTokens: choice.maxTokens || undefined,
    });
  }
  const baseUrl = choice.baseUrl ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
  const apiKey = env[choice.apiKeyEnv ?? "OPENAI_API_KEY"];
  // Local servers (Ollama, LM Studio, llama.cpp) need no key; api.openai.com does.
  if (!apiKey && isOpenAI(baseUrl)) throw usage(missingKey(choice.apiKeyEnv ?? "OPENAI_API_KEY"));
  const model = choice.model ?? env.OPENAI_MODEL;
  if (!model) throw usage("Name the model with --model or OPENAI_MODEL.");
  return createOpenAIProvider({
    baseUrl,
    apiKey: apiKey || undefined,
    model,
    maxTokens: choice.maxTokens || undefined,
  });
}

/**
 * As providerFromEnvironment, and an OpenAI-compatible endpoint other than api.openai.com (a local
 * server) needs no model name when it serves exactly one: its `/models` list names it.
 */
export async function chooseProvider(
  choice: ProviderChoice,
  env: Readonly<Record<string, string | undefined>>,
  options: { fetch?: typeof fetch | undefined; timeout?: number | undefined } = {},
): Promise<ModelProvider> {
  const anthropic =
    choice.provider === "anthropic" ||
    (choice.provider === undefined && env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL);
  const baseUrl = choice.baseUrl ?? env.OPENAI_BASE_URL;
  if (anthropic || choice.model || env.OPENAI_MODEL || !baseUrl || isOpenAI(baseUrl))
    return providerFromEnvironment(choice, env);
  const apiKey = env[choice.apiKeyEnv ?? "OPENAI_API_KEY"];
  const model = await onlyModel(baseUrl, apiKey, options);
  return providerFromEnvironment({ ...choice, model }, env);
}

/** The one model an OpenAI-compatible endpoint serves, or a USAGE error naming those it serves. */
async function onlyModel(
  baseUrl: string,
  apiKey: string | undefined,
  options: { fetch?: typeof fetch | undefined; timeout?: number | undefined },
): Promise<string> {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  let ids: string[];
  try {
    const response = await (options.fetch ?? fetch)(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(options.timeout ?? 5000),
    });
    if (!response.ok) throw modelListHttp({ status: response.status });
    const body = (await response.json()) as { data?: { id?: unknown }[]; models?: { name?: unknown }[] };
    ids = (body.data ?? [])
      .map((model) => model.id)
      .filter((id): id is string => typeof id === "string")
      // The names are the server's text: no control characters reach a terminal.
      .map((id) => id.replace(/\p{Cc}/gu, "").slice(0, 200));
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw usage(
      `Name the model with --model or OPENAI_MODEL (the models of ${new URL(url).origin} could not be listed: ${reason}).`,
    );
  }
  const [only] = ids;
  if (ids.length === 1 && only) return only;
  if (ids.length === 0)
    throw usage(`${new URL(url).origin} serves no model; load one, or name it with --model.`);
  const shown = ids.slice(0, 10).join(", ") + (ids.length > 10 ? `, ... (${ids.length} in all)` : "");
  throw usage(`Name the model with --model: ${new URL(url).origin} serves ${shown}.`);
}

function isOpenAI(baseUrl: string): boolean {
  return /^https?:\/\/api\.openai\.com(?:[/:]|$)/i.test(baseUrl);
}

/** No model endpoint is set up: every way to set one up, in one message. */
function missingKey(variable: string): string {
  return [
    "No model to talk to. Choose one:",
    `  OpenAI: set ${variable} (and OPENAI_MODEL or --model)`,
    "  Anthropic: set ANTHROPIC_API_KEY (and ANTHROPIC_MODEL or --model)",
    "  a local server (Ollama, LM Studio, llama.cpp; no key needed): --base-url http://127.0.0.1:11434/v1",
    "    (or OPENAI_BASE_URL); the model is found when the server has exactly one",
  ].join("\n");
}

/** A model choice that cannot be made: the message says which variable or flag to set. */
const usage = (message: string) => modelChoiceMissing({ message });
