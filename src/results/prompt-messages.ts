import type { ContentBlock, GetPromptResult, Prompt } from "@modelcontextprotocol/client";
import { blockText } from "./convert.js";
import { truncateText } from "./truncate.js";

/** One prompt message in a shape a host can splice into its conversation. */
export interface PromptMessageEntry {
  readonly role: "user" | "assistant";
  /** The original block: text, image, audio, embedded resource or resource link. */
  readonly content: ContentBlock;
  /** The block as text (images and blobs as placeholders), truncated like tool results. */
  readonly text: string;
}

export interface PromptMessages {
  readonly server: string;
  readonly prompt: string;
  readonly description?: string;
  readonly messages: readonly PromptMessageEntry[];
}

/** `prompts/get` result to host messages. Servers send odd things: nothing here may throw. */
export function toPromptMessages(
  server: string,
  prompt: string,
  result: GetPromptResult,
  options: { readonly maxResultChars: number },
): PromptMessages {
  const raw = Array.isArray(result.messages) ? (result.messages as unknown[]) : [];
  const messages: PromptMessageEntry[] = [];
  for (const entry of raw) {
    const message = (entry && typeof entry === "object" ? entry : {}) as Record<string, unknown>;
    const role = message.role === "assistant" ? "assistant" : "user";
    const content = (message.content ?? { type: "text", text: "" }) as ContentBlock;
    const text = truncateText(blockText(content) ?? "", options.maxResultChars).text;
    messages.push({ role, content, text });
  }
  return {
    server,
    prompt,
    ...(typeof result.description === "string" ? { description: result.description } : {}),
    messages,
  };
}

/** The prompt's arguments as a JSON Schema object (prompt arguments are strings by the spec). */
export function promptArgumentsSchema(prompt: Prompt): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const argument of Array.isArray(prompt.arguments) ? prompt.arguments : []) {
    if (!argument || typeof argument.name !== "string") continue;
    properties[argument.name] = {
      type: "string",
      ...(typeof argument.description === "string" ? { description: argument.description } : {}),
    };
    if (argument.required === true) required.push(argument.name);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/** Required arguments of the prompt that `args` leaves out (or gives as an empty value). */
export function missingPromptArguments(prompt: Prompt, args: Readonly<Record<string, unknown>>): string[] {
  return (Array.isArray(prompt.arguments) ? prompt.arguments : [])
    .filter((argument) => argument?.required === true)
    .map((argument) => argument.name)
    .filter((name) => args[name] === undefined || args[name] === null || args[name] === "");
}
