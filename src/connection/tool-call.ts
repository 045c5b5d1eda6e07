import type {
  CallToolRequest,
  CallToolRequestOptions,
  CallToolResult,
  Tool,
} from "@modelcontextprotocol/client";
import { isForOneCall, linkAbort } from "../util/linked-abort.js";
import type { Semaphore } from "../util/semaphore.js";
import * as fail from "./failures.js";
import type { InputRound, ToolCallOptions } from "./server-connection.js";
import type { Session } from "./session.js";
import { SessionClient } from "./session-client.js";

/**
 * A server's listed tools by name (the first of a name wins), built on the first call after the list
 * changes: a call looks up its tool's definition without walking a list that may hold thousands.
 */
export class ToolIndex {
  #index: Map<string, Tool> | undefined;

  /** The list changed: the next lookup rebuilds the index from `tools`. */
  invalidate(): void {
    this.#index = undefined;
  }

  /**
   * The listed definition of a tool, when it has no output schema: such a call has no structured
   * output to validate and takes the session client's cheaper path (see session-client.ts). A tool
   * with an output schema goes through `callTool` and the SDK's cached, compiled validator.
   */
  withoutOutputSchema(name: string, tools: readonly Tool[]): Tool | undefined {
    if (!this.#index) {
      this.#index = new Map();
      for (const tool of tools) if (!this.#index.has(tool.name)) this.#index.set(tool.name, tool);
    }
    const tool = this.#index.get(name);
    return tool?.outputSchema === undefined ? tool : undefined;
  }

  /**
   * The listed definition without its output schema, for a leg of a call whose rounds the caller
   * drives: its result may be an `input_required` one, which has no structured output to check (the
   * caller's own client checks the final result against the schema it listed).
   */
  forRounds(name: string, tools: readonly Tool[]): Tool | undefined {
    this.withoutOutputSchema(name, tools);
    const tool = this.#index?.get(name);
    if (!tool || tool.outputSchema === undefined) return tool;
    const { outputSchema: _, ...rest } = tool;
    return rest;
  }
}

/**
 * Waits for one of the server's `maxConcurrency` slots within the call's deadline and signal; the
 * returned function frees it. A call that cannot get one fails as aborted or as timed out while queued.
 */
export async function acquireCallSlot(
  semaphore: Semaphore,
  target: { server: string; tool: string },
  options: ToolCallOptions,
  deadline: number,
): Promise<() => void> {
  const waitSignal = AbortSignal.any([
    ...(options.signal ? [options.signal] : []),
    AbortSignal.timeout(Math.max(0, deadline - Date.now())),
  ]);
  return semaphore.acquire(waitSignal).catch(() => {
    throw options.signal?.aborted
      ? fail.abortError(target.server, target.tool)
      : fail.timeoutError(target.server, target.tool, options.timeoutMs, "while queued");
  });
}

/** Sends one tools/call on a live session, with `remaining` ms left of the call's deadline. */
export function sendToolCall(
  session: Session,
  tool: string,
  args: Record<string, unknown> | undefined,
  options: ToolCallOptions,
  remaining: number,
  plain: Tool | undefined,
): Promise<CallToolResult> {
  // Built field by field: this runs on every call, and spreading empty objects allocates each.
  const params: CallToolRequest["params"] & { -readonly [K in keyof InputRound]: InputRound[K] } =
    args === undefined ? { name: tool } : { name: tool, arguments: args };
  const requestOptions: CallToolRequestOptions = {
    timeout: options.resetTimeoutOnProgress ? options.timeoutMs : remaining,
  };
  if (options.onProgress) requestOptions.onprogress = options.onProgress;
  if (options.resetTimeoutOnProgress) requestOptions.resetTimeoutOnProgress = true;
  const round = options.inputRound;
  if (round) {
    // The caller drives the rounds (a gateway passing them to its own client): the SDK hands an
    // input_required result back instead of asking our handlers.
    requestOptions.allowInputRequired = true;
    if (round.inputResponses !== undefined) params.inputResponses = round.inputResponses;
    if (round.requestState !== undefined) params.requestState = round.requestState;
  }
  const send = () =>
    plain && session.client instanceof SessionClient
      ? session.client.callPlainTool(params, plain, requestOptions)
      : session.client.callTool(params, requestOptions);
  if (!options.signal) return send();
  if (isForOneCall(options.signal)) {
    requestOptions.signal = options.signal;
    return send();
  }
  // A host often gives one signal to many concurrent calls; the SDK hangs a listener per request on
  // the signal it gets, so it gets one of its own per call, linked to the host's (see linked-abort.ts).
  const own = new AbortController();
  const unlink = linkAbort(options.signal, own);
  requestOptions.signal = own.signal;
  return send().finally(unlink);
}
