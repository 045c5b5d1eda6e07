import { executeToolCall } from "../adapters/execute.js";
import type { Bridge, Progress, ToolEntry } from "../bridge/types.js";
import { AbortError, errorMessages, type McpBridgeError } from "../errors.js";
import type { ToolResult } from "../results/types.js";
import type { AgentMessage, AgentToolCall, ModelProvider } from "./types.js";

/**
 * The turn loop every agent host writes: send the conversation and the tools to the model, stream
 * its reply, run the tool calls it makes (concurrently, through the bridge), send the results back,
 * and repeat until the model answers without calling a tool or the step limit is reached.
 *
 * A failed tool call (unknown tool, malformed arguments, an error result, a crashed server) goes
 * back to the model as a tool result and the loop goes on; only the model endpoint failing, the
 * step limit, or cancellation end a turn early. Cancelling (the `signal` of `run`) aborts the model
 * request and every tool call in flight, whose servers then receive `notifications/cancelled`.
 */

export type AgentEvent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_start"; readonly call: AgentToolCall; readonly entry?: ToolEntry }
  | { readonly type: "tool_progress"; readonly call: AgentToolCall; readonly progress: Progress }
  | {
      readonly type: "tool_end";
      readonly call: AgentToolCall;
      readonly result: ToolResult;
      readonly ms: number;
      readonly entry?: ToolEntry;
    }
  | { readonly type: "step"; readonly step: number };

/** Asked before a tool runs; `false` sends "declined by the user" back to the model instead. */
export type ApproveToolCall = (
  call: AgentToolCall,
  entry: ToolEntry | undefined,
) => Promise<boolean> | boolean;

export interface AgentOptions {
  readonly bridge: Pick<Bridge, "call" | "tool" | "tools">;
  readonly provider: ModelProvider;
  readonly system?: string;
  /** Model requests per turn at most (default 16): a model that keeps calling tools is stopped. */
  readonly maxSteps?: number;
  /** The tools offered to the model (default: every tool of the bridge, read at each step). */
  readonly tools?: () => readonly ToolEntry[];
  /** Per tool call, in milliseconds (default: the server's call timeout). */
  readonly callTimeout?: number;
  readonly approve?: ApproveToolCall;
  readonly onEvent?: (event: AgentEvent) => void;
}

export interface TurnResult {
  /** The model's final text of this turn. */
  readonly text: string;
  readonly steps: number;
  /** `end` (the model answered), `max_steps`, or the model's own stop reason. */
  readonly stopReason: string;
}

export const DEFAULT_MAX_STEPS = 16;

export class Agent {
  readonly #options: AgentOptions;
  readonly #messages: AgentMessage[] = [];

  constructor(options: AgentOptions) {
    this.#options = options;
  }

  /** The conversation so far (user, assistant and tool messages). */
  get messages(): readonly AgentMessage[] {
    return this.#messages;
  }

  clear(): void {
    this.#messages.length = 0;
  }

  /** Adds messages without a model call (a prompt's messages, an attached resource). */
  append(...messages: AgentMessage[]): void {
    this.#messages.push(...messages);
  }

  /**
   * One user turn. Rejects with MODEL_REQUEST when the model endpoint fails and with ABORTED when
   * cancelled; the conversation keeps what was complete before (a cancelled turn's partial reply is
   * kept as text, its unfinished tool calls are answered as cancelled so the next turn is valid).
   */
  async run(input: string, options: { signal?: AbortSignal } = {}): Promise<TurnResult> {
    const { provider, bridge, onEvent } = this.#options;
    const maxSteps = this.#options.maxSteps ?? DEFAULT_MAX_STEPS;
    const signal = options.signal;
    this.#messages.push({ role: "user", content: input });
    for (let step = 1; step <= maxSteps; step++) {
      onEvent?.({ type: "step", step });
      throwIfAborted(signal);
      const tools = this.#options.tools?.() ?? bridge.tools();
      let text = "";
      const calls: AgentToolCall[] = [];
      let stopReason = "end";
      try {
        for await (const event of provider.stream({
          ...(this.#options.system ? { system: this.#options.system } : {}),
          messages: this.#messages,
          tools,
          ...(signal ? { signal } : {}),
        })) {
          if (event.type === "text") {
            text += event.text;
            onEvent?.(event);
          } else if (event.type === "tool_call") calls.push(event.call);
          else stopReason = event.stopReason;
        }
      } catch (error) {
        if (text) this.#messages.push({ role: "assistant", content: text });
        if (signal?.aborted) throw abortError();
        throw error;
      }
      this.#messages.push({
        role: "assistant",
        content: text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
      });
      if (calls.length === 0) return { text, steps: step, stopReason };
      // Approvals are asked one at a time, in the model's order, before any of the calls runs: a
      // person answers one question after another, and sees the answers' tools start together.
      const approved: boolean[] = [];
      for (const call of calls) approved.push(await this.#approved(call, signal));
      const results = await Promise.all(
        calls.map((call, index) => this.#runTool(call, signal, approved[index])),
      );
      this.#messages.push(...results);
      if (signal?.aborted) throw abortError();
    }
    return { text: "", steps: maxSteps, stopReason: "max_steps" };
  }

  async #approved(call: AgentToolCall, signal: AbortSignal | undefined): Promise<boolean> {
    const { approve, bridge } = this.#options;
    if (!approve || signal?.aborted) return true;
    return approve(call, bridge.tool(call.name));
  }

  async #runTool(
    call: AgentToolCall,
    signal: AbortSignal | undefined,
    approved: boolean | undefined,
  ): Promise<AgentMessage> {
    const { bridge, onEvent } = this.#options;
    const entry = bridge.tool(call.name);
    onEvent?.({ type: "tool_start", call, ...(entry ? { entry } : {}) });
    const started = performance.now();
    let result: ToolResult;
    if (signal?.aborted) result = cancelled();
    else if (approved === false) {
      const text = `The user declined to run ${call.name}. Do not retry it; ask the user or continue without it.`;
      result = { text, content: [{ type: "text", text }], isError: true };
    } else {
      result = await executeToolCall(bridge, call.name, call.arguments, {
        ...(signal ? { signal } : {}),
        ...(this.#options.callTimeout ? { timeout: this.#options.callTimeout } : {}),
        onProgress: (progress) => onEvent?.({ type: "tool_progress", call, progress }),
      });
    }
    const ms = performance.now() - started;
    onEvent?.({ type: "tool_end", call, result, ms, ...(entry ? { entry } : {}) });
    return {
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: result.text,
      isError: result.isError,
    };
  }
}

function cancelled(): ToolResult {
  const text = "Error: The call was cancelled before it started. [ABORTED]";
  return { text, content: [{ type: "text", text }], isError: true };
}

function abortError(): McpBridgeError {
  return new AbortError(errorMessages.turnCancelled());
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}
