import type {
  GetPromptResult,
  ListResourceTemplatesResult,
  Prompt,
  ReadResourceResult,
  Resource,
} from "@modelcontextprotocol/server";
import type { PromptEntry } from "../../../bridge/features/prompts.js";
import type { ResourceEntry, ResourceTemplateEntry } from "../../../bridge/features/resources.js";
import type { PromptMessages } from "../../../results/prompt-messages.js";
import type { ResourceContent } from "../../../results/resource.js";
import { upstreamOf } from "../../../util/upstream.js";

/** The wire shape of a template (the server package's `ResourceTemplate` is its own class). */
type ResourceTemplate = ListResourceTemplatesResult["resourceTemplates"][number];

/**
 * Resources, resource templates and prompts as their upstream server sent them (`_meta`, `icons`,
 * `title`, `annotations`, `size`, vendor keys): the gateway renames prompts only (their names must be
 * unique across servers); URIs stay the server's own, so a `ui://` resource that a tool's
 * `_meta.ui.resourceUri` names is read through the gateway under that same URI.
 */

export function forwardedResource(entry: ResourceEntry): Resource {
  const { server: _server, icons, ...rest } = entry;
  return upstreamOf<Resource>(entry) ?? { ...rest, icons: icons && [...icons] };
}

export function forwardedTemplate(entry: ResourceTemplateEntry): ResourceTemplate {
  const { server: _server, icons, ...rest } = entry;
  return upstreamOf<ResourceTemplate>(entry) ?? { ...rest, icons: icons && [...icons] };
}

/** A prompt under its exposed name, every other field as its server listed it. */
export function forwardedPrompt(entry: PromptEntry): Prompt {
  const original = upstreamOf<Prompt>(entry);
  if (original) return { ...original, name: entry.name };
  const { server: _server, prompt: _prompt, arguments: args, icons, ...rest } = entry;
  return { ...rest, arguments: [...args], icons: icons && [...icons] };
}

/** The read's contents as the server sent them (each part's `_meta`, text and blob untouched). */
export function forwardedRead(content: ResourceContent): ReadResourceResult {
  const original = upstreamOf<ReadResourceResult>(content);
  if (original && Array.isArray(original.contents)) return original;
  return {
    contents: content.parts.map((part) =>
      part.bytes
        ? { uri: part.uri, blob: Buffer.from(part.bytes).toString("base64"), mimeType: part.mimeType }
        : { uri: part.uri, text: part.text ?? "", mimeType: part.mimeType },
    ),
  };
}

/** The prompt's messages as the server sent them. */
export function forwardedPromptResult(result: PromptMessages): GetPromptResult {
  const original = upstreamOf<GetPromptResult>(result);
  if (original && Array.isArray(original.messages)) return original;
  return {
    messages: result.messages.map((m) => ({ role: m.role, content: m.content })),
    description: result.description,
  } as GetPromptResult;
}
