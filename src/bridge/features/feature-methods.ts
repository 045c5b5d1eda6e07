import type { Root } from "@modelcontextprotocol/client";
import type { PromptMessages } from "../../results/prompt-messages.js";
import type { ResourceContent } from "../../results/resource.js";
import type { CompleteOptions, CompleteRef, CompletionResult } from "./completions.js";
import type { RequestOptions } from "./feature-context.js";
import type { GetPromptOptions, PromptEntry } from "./prompts.js";
import type {
  ReadResourceOptions,
  ResourceEntry,
  ResourceTemplateEntry,
  ResourceUpdate,
} from "./resources.js";
import type { LoadedSkill, LoadSkillOptions, SkillEntry } from "./skills.js";

/** The bridge's MCP surface beyond tools (part of the Bridge interface). */
export interface SurfaceMethods {
  /** Every connected server's resources (all pages), or one server's (`server`, connecting it if idle). */
  resources(options?: RequestOptions): Promise<ResourceEntry[]>;
  resourceTemplates(options?: RequestOptions): Promise<ResourceTemplateEntry[]>;
  /**
   * Reads a resource as text an LLM can read (tool-result truncation; blobs as placeholders, or bytes
   * with `binary`). A URI two servers serve needs `server`; a URI none serves is RESOURCE_NOT_FOUND.
   */
  readResource(uri: string, options?: ReadResourceOptions): Promise<ResourceContent>;
  /** Calls `listener` on each `resources/updated` of the URI; resolves to the unsubscribe function. */
  subscribe(
    uri: string,
    listener: (update: ResourceUpdate) => void,
    options?: RequestOptions,
  ): Promise<() => Promise<void>>;
  prompts(options?: RequestOptions): Promise<PromptEntry[]>;
  /** Messages of a prompt (exposed name or `server/prompt`); required arguments are checked first. */
  getPrompt(
    name: string,
    args?: Record<string, unknown>,
    options?: GetPromptOptions,
  ): Promise<PromptMessages>;
  /** Completion suggestions for a prompt argument or a resource-template variable. */
  complete(
    ref: CompleteRef,
    argument: { name: string; value: string },
    options?: CompleteOptions,
  ): Promise<CompletionResult>;
  /**
   * Skills of the servers that declare the skills extension (`io.modelcontextprotocol/skills`): every
   * connected server's, or one server's (`server`, connecting it if idle). Reads no skill file.
   */
  skills(options?: RequestOptions): Promise<SkillEntry[]>;
  /**
   * Reads a skill (by name or SKILL.md URI) and its listed files, verifying each against the listing
   * (byte size, sha256 digest, frontmatter); a mismatch throws SkillVerificationError (SKILL_VERIFICATION).
   */
  loadSkill(name: string, options?: LoadSkillOptions): Promise<LoadedSkill>;
  /** Replaces the roots shown to servers (all, or `server`) and sends `notifications/roots/list_changed`. */
  setRoots(roots: readonly (string | Root)[], options?: { server?: string }): Promise<void>;
}
