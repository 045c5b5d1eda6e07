import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Scripted model endpoints on 127.0.0.1 (port 0) that stream real SSE in each vendor's documented
 * format: OpenAI Chat Completions chunks and Anthropic Messages events. Each request is answered by
 * the next step of the script, which sees the request body (so a step can check that tool results
 * came back). Every request is recorded.
 */

export type ToolCallSpec = { readonly id: string; readonly name: string; readonly arguments: string };
/** One model reply: text (streamed in pieces) and/or tool calls; `raw` sends these SSE lines as is. */
export interface ScriptStep {
  readonly text?: string;
  readonly toolCalls?: readonly ToolCallSpec[];
  readonly status?: number;
  readonly raw?: string;
  /** Stop after sending this many events, without the end of the stream. */
  readonly breakAfter?: number;
  /** Milliseconds between events (for cancellation tests). */
  readonly delayMs?: number;
}

export interface ScriptedEndpoint {
  readonly url: string;
  readonly requests: Record<string, unknown>[];
  readonly headers: IncomingMessage["headers"][];
  close(): Promise<void>;
}

type Step = ScriptStep | ((body: Record<string, unknown>) => ScriptStep);

async function start(
  script: Step[],
  events: (step: ScriptStep) => string[],
  path: string,
): Promise<ScriptedEndpoint> {
  const requests: Record<string, unknown>[] = [];
  const headers: IncomingMessage["headers"][] = [];
  let next = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", async () => {
      if (req.url !== path) {
        res.writeHead(404).end("not found");
        return;
      }
      const parsed = JSON.parse(body) as Record<string, unknown>;
      requests.push(parsed);
      headers.push(req.headers);
      const entry = script[next++];
      const step = typeof entry === "function" ? entry(parsed) : (entry ?? { text: "(script ended)" });
      if (step.status && step.status !== 200) {
        res.writeHead(step.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "invalid api key sk-secret-should-not-matter" } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (step.raw !== undefined) {
        res.end(step.raw);
        return;
      }
      const all = events(step);
      const count = step.breakAfter ?? all.length;
      for (const event of all.slice(0, count)) {
        if (res.destroyed) return;
        res.write(event);
        if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

/** Pieces of a text, as models stream them. */
function pieces(text: string): string[] {
  return text.match(/.{1,4}/gs) ?? [];
}

/** The token counts every scripted OpenAI reply reports (Anthropic: 7 + 3 cached in, 5 out). */
export const SCRIPTED_USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

export function startScriptedOpenAI(script: Step[]): Promise<ScriptedEndpoint> {
  return start(
    script,
    (step) => {
      const chunk = (delta: unknown, finish: string | null = null) =>
        sse({
          id: "c1",
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
      const out = [chunk({ role: "assistant", content: "" })];
      for (const piece of pieces(step.text ?? "")) out.push(chunk({ content: piece }));
      (step.toolCalls ?? []).forEach((call, index) => {
        out.push(
          chunk({
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
            ],
          }),
        );
        for (const piece of pieces(call.arguments)) {
          out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
      });
      out.push(chunk({}, step.toolCalls?.length ? "tool_calls" : "stop"));
      // As with `stream_options.include_usage`: the counts in a last chunk with no choices.
      out.push(sse({ id: "c1", object: "chat.completion.chunk", choices: [], usage: SCRIPTED_USAGE }));
      out.push("data: [DONE]\n\n");
      return out;
    },
    "/v1/chat/completions",
  );
}

export function startScriptedAnthropic(script: Step[]): Promise<ScriptedEndpoint> {
  return start(
    script,
    (step) => {
      const out = [
        sse(
          {
            type: "message_start",
            message: {
              id: "m1",
              type: "message",
              role: "assistant",
              content: [],
              usage: { input_tokens: 7, cache_read_input_tokens: 3, output_tokens: 1 },
            },
          },
          "message_start",
        ),
        sse({ type: "ping" }, "ping"),
      ];
      let index = 0;
      if (step.text) {
        out.push(
          sse(
            { type: "content_block_start", index, content_block: { type: "text", text: "" } },
            "content_block_start",
          ),
        );
        for (const piece of pieces(step.text)) {
          out.push(
            sse(
              { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } },
              "content_block_delta",
            ),
          );
        }
        out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
        index++;
      }
      for (const call of step.toolCalls ?? []) {
        out.push(
          sse(
            {
              type: "content_block_start",
              index,
              content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
            },
            "content_block_start",
          ),
        );
        for (const piece of pieces(call.arguments)) {
          out.push(
            sse(
              {
                type: "content_block_delta",
                index,
                delta: { type: "input_json_delta", partial_json: piece },
              },
              "content_block_delta",
            ),
          );
        }
        out.push(sse({ type: "content_block_stop", index }, "content_block_stop"));
        index++;
      }
      const reason = step.toolCalls?.length ? "tool_use" : "end_turn";
      out.push(
        sse(
          { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 5 } },
          "message_delta",
        ),
      );
      out.push(sse({ type: "message_stop" }, "message_stop"));
      return out;
    },
    "/v1/messages",
  );
}
