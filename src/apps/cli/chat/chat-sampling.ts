import type { SamplingHandler, SamplingRequest, SamplingResult } from "../../../bridge/features/sampling.js";
import { samplingDeclined, samplingUnanswered } from "../../../errors/cli-errors.js";
import { textOf } from "../../../util/text-of.js";
import type { AgentMessage, ModelProvider } from "../../agent/model-provider.js";
import { shorten } from "../output.js";
import { terminalText } from "../terminal.js";
import type { ChatView } from "./view.js";

/**
 * A server's sampling request in the chat: shown to the person (server, the messages shortened, the
 * token cap), and on their yes fulfilled by the chat's own model; on their no (or with nobody to
 * ask) the server gets an error saying it was declined. The view and the question are late-bound:
 * the bridge exists before the chat's prompt does.
 */

export interface SamplingPrompt {
  /** Where the request and the answer are shown; nothing is shown before the chat has a view. */
  view?: ChatView;
  /** Asks the person; undefined without a terminal. */
  ask?: (question: string, signal?: AbortSignal) => Promise<string | undefined>;
  /** `--yes`: approve without asking. */
  yes?: boolean;
}

export function chatSampling(provider: ModelProvider, prompt: SamplingPrompt): SamplingHandler {
  return async (request, { server, signal }) => {
    const { view, ask, yes } = prompt;
    const who = terminalText(server);
    view?.line(`  ⟳ ${who} asks the model (sampling, at most ${request.maxTokens} tokens):`);
    for (const line of samplingLines(request, view?.width ?? 80)) view?.line(`    ${line}`);
    let approved = yes === true;
    if (!approved && ask) {
      const answer = (await ask(`Let ${who} use the model? [y]es / [n]o: `, signal)) ?? "";
      if (signal.aborted) {
        view?.line("");
        view?.note(`  (${who} withdrew its sampling request, or it ran out of time)`);
        throw samplingUnanswered({ server });
      }
      approved = /^\s*y(es)?\s*$/i.test(answer);
    }
    if (!approved) {
      view?.note(`  (sampling for ${who} declined${ask || yes ? "" : ": no terminal to ask; use --yes"})`);
      throw samplingDeclined({ server });
    }
    const result = await fulfil(provider, request, signal);
    const text = messageText(result.content);
    view?.line(
      `  ✓ sampling for ${who}: ${shorten(terminalText(text).replace(/\s+/g, " "), (view?.width ?? 80) - 30)}`,
    );
    return result;
  };
}

/** The request as lines: the system prompt, then each message as `role: text`, shortened. */
export function samplingLines(request: SamplingRequest, width: number): string[] {
  const limit = Math.max(20, width - 12);
  const lines: string[] = [];
  if (request.systemPrompt) lines.push(`system: ${shorten(oneLine(request.systemPrompt), limit)}`);
  const messages = request.messages.slice(-6);
  if (request.messages.length > messages.length)
    lines.push(`(${request.messages.length - messages.length} earlier messages)`);
  for (const message of messages) {
    lines.push(`${message.role}: ${shorten(oneLine(messageText(message.content)), limit)}`);
  }
  return lines;
}

/** The chat's model answers the request (text only: the server's tools are not offered to it). */
async function fulfil(
  provider: ModelProvider,
  request: SamplingRequest,
  signal: AbortSignal,
): Promise<SamplingResult> {
  const messages: AgentMessage[] = request.messages.map((message) =>
    message.role === "assistant"
      ? { role: "assistant", content: messageText(message.content) }
      : { role: "user", content: messageText(message.content) },
  );
  let text = "";
  let stopReason = "endTurn";
  for await (const event of provider.stream({
    system: request.systemPrompt || undefined,
    messages,
    tools: [],
    maxTokens: request.maxTokens,
    signal,
  })) {
    if (event.type === "text") text += event.text;
    else if (event.type === "done" && /max_tokens|length/.test(event.stopReason)) stopReason = "maxTokens";
  }
  return { role: "assistant", content: { type: "text", text }, model: provider.model, stopReason };
}

/** The text of a message's content blocks; other kinds are named in brackets. */
function messageText(content: unknown): string {
  const blocks = (Array.isArray(content) ? content : [content]) as Record<string, unknown>[];
  return blocks
    .map((block) => (block?.type === "text" ? textOf(block.text) : `[${textOf(block?.type)}]`))
    .join("\n");
}

function oneLine(text: string): string {
  return terminalText(text).replace(/\s+/g, " ").trim();
}
