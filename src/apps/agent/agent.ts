import { declinedResult, executeEntry } from "../../adapters/execute.js";
import { resolveToolCall } from "../../adapters/resolve-call.js";
import type { Bridge, CallApprovalRequest, Progress, ToolEntry } from "../../bridge/api.js";
import { type McpBridgeError, toolRenamed, turnCancelled } from "../../errors/index.js";
import { errorToolResult } from "../../results/convert.js";
import type { ToolResult } from "../../results/tool-result.js";
import type { AgentMessage, AgentToolCall, ModelProvider, TokenUsage } from "./model-provider.js";

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
  | {
      readonly type: "tool_progress";
      readonly call: AgentToolCall;
      readonly progress: Progress;
      readonly entry?: ToolEntry;
    }
  | {
      readonly type: "tool_end";
      readonly call: AgentToolCall;
      readonly result: ToolResult;
      readonly ms: number;
      readonly entry?: ToolEntry;
    }
  | { readonly type: "step"; readonly step: number }
  /** The model's reply of this step is complete (its tool calls, if any, come next). */
  | { readonly type: "model_end"; readonly step: number }
  /** One model request's tokens, when the endpoint reports them. */
  | { readonly type: "usage"; readonly usage: TokenUsage };

/**
 * Asked before a tool runs, with the tool the call resolved to (whatever the model's spelling of its
 * name); `false` sends "declined by the user" back to the model instead. Exactly that tool then runs.
 */
export type ApproveToolCall = (call: AgentToolCall, entry: ToolEntry) => Promise<boolean> | boolean;

export interface AgentOptions {
  /** `servers` and `on` (a Bridge has them) let a call wait for the server still connecting that brings its tool. */
  readonly bridge: Pick<Bridge, "call" | "tool" | "tools"> & Partial<Pick<Bridge, "servers" | "on">>;
  readonly provider: ModelProvider;
  readonly system?: string;
  /** Model requests per turn at most (default 16): a model that keeps calling tools is stopped. */
  readonly maxSteps?: number;
  /**
   * The tools offered to the model (default: every tool of the bridge, read at each step). Only these
   * run: a call naming any other tool is refused.
   */
  readonly tools?: () => readonly ToolEntry[];
  /** Per tool call, in milliseconds (default: the server's call timeout). */
  readonly callTimeout?: number;
  readonly approve?: ApproveToolCall;
  /**
   * Answers the call policy's `ask` for one of the model's calls (see CallOptions.approveCall);
   * without it such a call is denied, as nobody can be asked.
   */
  readonly approveCall?: (request: CallApprovalRequest, call: AgentToolCall) => Promise<boolean> | boolean;
  readonly onEvent?: (event: AgentEvent) => void;
}

export interface TurnResult {
  /** The model's final text of this turn. */
  readonly text: string;
  readonly steps: number;
  /** `end` (the model answered), `max_steps`, or the model's own stop reason. */
  readonly stopReason: string;
  /** The turn's tokens, summed over its model requests (zero when the endpoint reports none). */
  readonly usage: TokenUsage;
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
    const usage = { inputTokens: 0, outputTokens: 0 };
    for (let step = 1; step <= maxSteps; step++) {
      onEvent?.({ type: "step", step });
      throwIfAborted(signal);
      const tools = this.#options.tools?.() ?? bridge.tools();
      let text = "";
      const calls: AgentToolCall[] = [];
      let stopReason = "end";
      try {
        for await (const event of provider.stream({
          system: this.#options.system || undefined,
          messages: this.#messages,
          tools,
          signal,
        })) {
          if (event.type === "text") {
            text += event.text;
            onEvent?.(event);
          } else if (event.type === "tool_call") calls.push(event.call);
          else if (event.type === "usage") {
            usage.inputTokens += event.usage.inputTokens;
            usage.outputTokens += event.usage.outputTokens;
            onEvent?.(event);
          } else stopReason = event.stopReason;
        }
      } catch (error) {
        if (text) this.#messages.push({ role: "assistant", content: text });
        if (signal?.aborted) throw abortError();
        throw error;
      }
      onEvent?.({ type: "model_end", step });
      this.#messages.push({
        role: "assistant",
        content: text,
        toolCalls: calls.length > 0 ? calls : undefined,
      });
      if (calls.length === 0) return { text, steps: step, stopReason, usage };
      // Each call is resolved to the one offered tool it will run, then approved on that tool, one
      // at a time in the model's order before any runs: a person answers one question after
      // another, and sees the answers' tools start together.
      const decided: Decision[] = [];
      for (const call of calls) decided.push(await this.#decide(call, signal));
      const results = await Promise.all(decided.map((decision) => this.#runTool(decision, signal)));
      this.#messages.push(...results);
      if (signal?.aborted) throw abortError();
    }
    return { text: "", steps: maxSteps, stopReason: "max_steps", usage };
  }

  async #decide(call: AgentToolCall, signal: AbortSignal | undefined): Promise<Decision> {
    const { approve, bridge, tools, callTimeout } = this.#options;
    if (signal?.aborted) return { call, outcome: "cancelled" };
    const resolution = await resolveToolCall(bridge, call.name, {
      offered: tools,
      signal,
      timeout: callTimeout,
    });
    if (signal?.aborted) return { call, outcome: "cancelled" };
    if (!resolution.ok) return { call, outcome: "refused", result: errorToolResult(resolution.error) };
    const entry = resolution.entry;
    if (approve && !(await approve(call, entry))) return { call, entry, outcome: "declined" };
    return { call, entry, outcome: "run" };
  }

  async #runTool(decision: Decision, signal: AbortSignal | undefined): Promise<AgentMessage> {
    const { onEvent, bridge } = this.#options;
    const { call, entry } = decision;
    onEvent?.({ type: "tool_start", call, entry });
    const started = performance.now();
    let result: ToolResult;
    if (decision.outcome === "refused") result = decision.result;
    else if (signal?.aborted || decision.outcome === "cancelled") result = cancelled(false);
    else if (decision.outcome === "declined") result = declinedResult(decision.entry);
    else if (renamed(bridge, decision.entry)) result = errorToolResult(renamedError(decision.entry));
    else {
      // Exactly the approved tool runs: its entry, never the model's name resolved a second time.
      const { approveCall } = this.#options;
      result = await executeEntry(decision.entry, call.arguments, {
        signal,
        approveCall: approveCall && ((request) => approveCall(request, call)),
        timeout: this.#options.callTimeout || undefined,
        onProgress: (progress) => onEvent?.({ type: "tool_progress", call, progress, entry: decision.entry }),
      });
      // Cut short by the person: what the server said about the cancellation is no error of the
      // tool's, and the model would only quote it back.
      if (signal?.aborted) result = cancelled(true);
    }
    const ms = performance.now() - started;
    onEvent?.({ type: "tool_end", call, result, ms, entry });
    return {
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: result.text,
      isError: result.isError,
    };
  }
}

/** What happens to one tool call of the model, decided before any of the step's calls runs. */
type Decision =
  | { readonly call: AgentToolCall; readonly entry?: undefined; readonly outcome: "cancelled" }
  | {
      readonly call: AgentToolCall;
      readonly entry?: undefined;
      readonly outcome: "refused";
      readonly result: ToolResult;
    }
  | { readonly call: AgentToolCall; readonly entry: ToolEntry; readonly outcome: "declined" | "run" };

/**
 * The exposed name now names another tool (a reload renamed tools while the person was asked): the
 * approval was for a tool the name no longer means, so nothing runs.
 */
function renamed(bridge: Pick<Bridge, "tool">, entry: ToolEntry): boolean {
  const current = bridge.tool(entry.name);
  return current !== undefined && (current.server !== entry.server || current.tool !== entry.tool);
}

function renamedError(entry: ToolEntry): McpBridgeError {
  return toolRenamed({ name: entry.name, server: entry.server, tool: entry.tool });
}

/** A call the person cancelled (Ctrl-C): said plainly, not as the tool's error. */
function cancelled(started: boolean): ToolResult {
  const text = started
    ? "The user cancelled this call while it ran; it may or may not have taken effect."
    : "The user cancelled the turn before this call started; it did not run.";
  return { text, content: [{ type: "text", text }], isError: false };
}

function abortError(): McpBridgeError {
  return turnCancelled();
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}
