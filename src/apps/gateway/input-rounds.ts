import { randomUUID } from "node:crypto";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ElicitResult,
  type InputRequest,
  type InputRequiredResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { SamplingResult } from "../../bridge/features/sampling.js";
import type { DownstreamCall } from "./forward.js";
import { parkedCallEnd, questionRefused, unknownRequestState } from "./wire-errors.js";

/** One question of an upstream server that the downstream client must answer in its next round. */
interface Question {
  readonly request: InputRequest;
  readonly answer: (response: unknown) => void;
  readonly fail: (error: Error) => void;
}

/** An upstream call waiting for its client's next round, under its `requestState` token. */
interface Parked {
  readonly owner: string;
  readonly result: Promise<CallToolResult>;
  readonly stop: AbortController;
  /** Resolves with the next question, or undefined once the call has ended. */
  next: Promise<Question | undefined>;
  pending: Question | undefined;
  timer?: NodeJS.Timeout;
}

/** The key of the one question of a round in `inputRequests` / `inputResponses`. */
const KEY = "upstream";

/**
 * Elicitation and sampling for downstream clients of the 2026-07-28 protocol, which has no
 * server-to-client requests: a tool call whose upstream server asks a question returns an
 * `input_required` result carrying it, the upstream call stays parked, and the client's retry (with
 * its answer in `inputResponses` and our `requestState` token) resumes that call, which returns the
 * result or the next question. The token is random (122 bits) and bound to the client that started
 * the call, so a token is worth nothing to another client. A client that does not come back within
 * `timeoutMs` gets its question answered by the default (see forward.ts) and its call cancelled.
 * A retry must reach the replica holding the call: behind a load balancer this needs affinity.
 */
export class InputRounds {
  readonly #parked = new Map<string, Parked>();
  readonly #timeoutMs: number;
  /** Who waits for no call to be parked (a drain). */
  #idleWaiters: (() => void)[] = [];

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Whether this request is a 2026-07-28 one whose client declared the capability for `method`. */
  static canAsk(ctx: ServerContext, method: "elicitation/create" | "sampling/createMessage"): boolean {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
    if (!capabilities) return false;
    return method === "elicitation/create" ? capabilities.elicitation != null : capabilities.sampling != null;
  }

  /** Whether the request carries a `requestState` (a retry), which `resume` must take. */
  static isRetry(ctx: ServerContext): boolean {
    return typeof ctx.mcpReq.requestState() === "string";
  }

  /**
   * Starts an upstream call that may ask questions. `run` gets what the forwarder needs to ask this
   * client and the signal that cancels the call; it must settle when the call ends.
   */
  start(
    owner: string,
    ctx: ServerContext,
    run: (call: DownstreamCall, signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const stop = new AbortController();
    let wake: (question: Question | undefined) => void = () => {};
    const parked: Parked = {
      owner,
      stop,
      result: Promise.resolve({ content: [] }),
      next: new Promise((resolve) => {
        wake = resolve;
      }),
      pending: undefined,
    };
    const ask = <T>(request: InputRequest, method: "elicitation/create" | "sampling/createMessage") => {
      if (!InputRounds.canAsk(ctx, method)) {
        return Promise.reject(questionRefused.notDeclared(method));
      }
      // One question per round: a second one asked before the first is answered gets the default.
      if (parked.pending) return Promise.reject(questionRefused.anotherOpen());
      return new Promise<T>((answer, fail) => {
        const question: Question = { request, answer: (r) => answer(r as T), fail };
        parked.pending = question;
        const woken = wake;
        parked.next = new Promise((resolve) => {
          wake = resolve;
        });
        woken(question);
      });
    };
    const call: DownstreamCall = {
      elicit: (params) => ask<ElicitResult>({ method: "elicitation/create", params }, "elicitation/create"),
      sample: (params) =>
        ask<SamplingResult>({ method: "sampling/createMessage", params }, "sampling/createMessage"),
    };
    (parked as { result: Promise<CallToolResult> }).result = run(call, stop.signal).finally(() =>
      wake(undefined),
    );
    return this.#round(parked, ctx);
  }

  /** A retry: answers the parked call's question and waits for its result or its next question. */
  resume(owner: string, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const token = ctx.mcpReq.requestState();
    const parked = typeof token === "string" ? this.#parked.get(token) : undefined;
    // Another client's token is treated exactly like an unknown one.
    if (!parked || parked.owner !== owner || typeof token !== "string") {
      throw unknownRequestState();
    }
    this.#unpark(token);
    clearTimeout(parked.timer);
    const question = parked.pending;
    parked.pending = undefined;
    const response = ctx.mcpReq.inputResponses?.[KEY];
    if (question) {
      if (response && typeof response === "object") question.answer(response);
      else question.fail(questionRefused.noAnswer());
    }
    return this.#round(parked, ctx);
  }

  /** How many calls wait for their client's next round. */
  get parkedCount(): number {
    return this.#parked.size;
  }

  /** Whether `token` names a parked call: a drain still answers the retry that carries it. */
  holds(token: string): boolean {
    return this.#parked.has(token);
  }

  /** Resolves once no call is parked (answered, expired or closed). */
  idle(): Promise<void> {
    if (this.#parked.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Closes every parked call (gateway shutdown). */
  close(): void {
    for (const [token, parked] of this.#parked) this.#expire(token, parked, parkedCallEnd.closing);
  }

  async #round(parked: Parked, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    // While a round is open, the client cancelling it cancels the upstream call.
    const cancel = () => parked.stop.abort(ctx.mcpReq.signal.reason);
    ctx.mcpReq.signal.addEventListener("abort", cancel, { once: true });
    try {
      const question = await parked.next;
      if (!question) return await parked.result;
      const token = randomUUID();
      this.#parked.set(token, parked);
      parked.timer = setTimeout(
        () => this.#expire(token, parked, parkedCallEnd.noAnswerInTime),
        this.#timeoutMs,
      );
      parked.timer.unref();
      return {
        resultType: "input_required",
        inputRequests: { [KEY]: question.request },
        requestState: token,
      };
    } finally {
      ctx.mcpReq.signal.removeEventListener("abort", cancel);
    }
  }

  #unpark(token: string): void {
    this.#parked.delete(token);
    if (this.#parked.size > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #expire(token: string, parked: Parked, why: string): void {
    if (this.#parked.get(token) !== parked) return;
    this.#unpark(token);
    clearTimeout(parked.timer);
    parked.pending?.fail(questionRefused.ended(why));
    parked.pending = undefined;
    parked.stop.abort(questionRefused.ended(why));
    parked.result.catch(() => undefined);
  }
}
