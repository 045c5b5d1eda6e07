import type { Bridge } from "../../../bridge/api.js";
import { errorText } from "../../../util/text-of.js";
import type { AgentMessage } from "../../agent/model-provider.js";
import { shorten } from "../output.js";
import { terminalText } from "../terminal.js";

/**
 * What a person can bring into the conversation from the servers: a resource attached with
 * `@SERVER:URI` in a message, and a server prompt inserted with `/SERVER:PROMPT key=value ...`.
 */

type Surface = Pick<Bridge, "readResource" | "prompts" | "getPrompt" | "resources">;

/** `@server:uri` in a message (a URI has a scheme, so `@name` alone or an e-mail address is left alone). */
const ATTACHMENT = /(^|\s)@([A-Za-z0-9_.-]+):([a-z][a-z0-9+.-]*:\S+)/gi;

export interface Attached {
  /** The message with each attached resource's text added after it. */
  readonly content: string;
  readonly attached: readonly string[];
  readonly failed: readonly string[];
}

export async function attachResources(
  bridge: Surface,
  text: string,
  signal?: AbortSignal,
): Promise<Attached> {
  const found = [...text.matchAll(ATTACHMENT)].map((m) => ({ server: m[2] as string, uri: m[3] as string }));
  const parts: string[] = [text];
  const attached: string[] = [];
  const failed: string[] = [];
  for (const { server, uri } of found.slice(0, 8)) {
    try {
      const resource = await bridge.readResource(uri, { server, signal });
      parts.push(`\n[Attached resource ${server}:${uri}]\n${resource.text}`);
      attached.push(`${server}:${uri}`);
    } catch (error) {
      failed.push(`${server}:${uri}: ${errorText(error)}`);
    }
  }
  return { content: parts.join("\n"), attached, failed };
}

/** `/server:prompt a=1 b=two`: the server's prompt, rendered, as conversation messages. */
export async function promptMessages(
  bridge: Surface,
  command: string,
): Promise<{ messages: AgentMessage[]; name: string } | { error: string }> {
  const match = /^\/([^\s:]+):(\S+)\s*(.*)$/s.exec(command);
  if (!match) return { error: "Usage: /SERVER:PROMPT key=value ..." };
  const [, server, prompt, rest] = match as unknown as [string, string, string, string];
  const entries = await bridge.prompts();
  const entry = entries.find((p) => p.server === server && (p.prompt === prompt || p.name === prompt));
  if (!entry) {
    const known = entries.filter((p) => p.server === server).map((p) => p.prompt);
    return {
      error: `No prompt "${prompt}" on server "${server}"${known.length ? ` (it has: ${known.join(", ")})` : ""}. Type /mcp prompts for the list.`,
    };
  }
  const args: Record<string, string> = {};
  for (const pair of rest.split(/\s+/).filter(Boolean)) {
    const index = pair.indexOf("=");
    if (index <= 0) return { error: `Expected key=value, got "${pair}"` };
    args[pair.slice(0, index)] = pair.slice(index + 1);
  }
  try {
    const result = await bridge.getPrompt(entry.name, args);
    const messages: AgentMessage[] = result.messages.map((m) =>
      m.role === "assistant" ? { role: "assistant", content: m.text } : { role: "user", content: m.text },
    );
    return { messages, name: `${server}:${entry.prompt}` };
  } catch (error) {
    return { error: errorText(error) };
  }
}

export async function resourceList(bridge: Surface): Promise<string> {
  const resources = await bridge.resources();
  if (resources.length === 0) return "No resources.";
  return resources
    .slice(0, 200)
    .map((r) => `@${r.server}:${terminalText(r.uri)}  ${shorten(terminalText(r.title ?? r.name), 50)}`)
    .join("\n");
}

export async function promptList(bridge: Surface): Promise<string> {
  const prompts = await bridge.prompts();
  if (prompts.length === 0) return "No prompts.";
  return prompts
    .map((p) => {
      const args = p.arguments.map((a) => (a.required ? `${a.name}=` : `[${a.name}=]`)).join(" ");
      return `/${p.server}:${p.prompt}${args ? ` ${args}` : ""}  ${shorten(terminalText(p.description ?? ""), 50)}`;
    })
    .join("\n");
}
