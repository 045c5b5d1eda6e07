import { randomUUID } from "node:crypto";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type CreateMessageRequest,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type InputRequest,
  type InputRequiredResult,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { InputRound } from "../../../bridge/api.js";
import type { SamplingResult } from "../../../bridge/features/sampling.js";
import {
  callHash,
  credentialHash,
  type OpenFailure,
  openRound,
  peekRound,
  processStateKeys,
  type ReplicaAddress,
  type SealedRound,
  type StateKeys,
  sealRound,
} from "../identity/sealed-state.js";
import { parkedCallEnd, questionRefused, requestStateRefused, unknownRequestState } from "../wire-errors.js";
import { type ElicitationModes, elicitationModes } from "./approval-client.js";
import { upstreamRound } from "./upstream-rounds.js";

/** What a downstream call in flight can ask or tell its own client (through the SDK's request context). */
export interface DownstreamCall {
  readonly elicit: (params: ElicitRequestFormParams | ElicitRequestURLParams) => Promise<ElicitResult>;
  readonly sample: (params: CreateMessageRequest["params"]) => Promise<SamplingResult>;
  /** The elicitation modes the client declared (for approvals, see approval-client.ts); undefined: none. */
  readonly elicitModes?: () => ElicitationModes;
}

/** One question of an upstream server that the downstream client must answer in its next round. */
interface Question {
  readonly request: InputRequest;
  readonly answer: (response: unknown) => void;
  readonly fail: (error: Error) => void;
}

/** An upstream call waiting for its client's next round, under the id its sealed token names. */
interface Parked {
  readonly owner: string;
  readonly result: Promise<CallToolResult>;
  readonly stop: AbortController;
  /** Resolves with the next question, or undefined once the call has ended. */
  next: Promise<Question | undefined>;
  pending: Question | undefined;
  timer?: NodeJS.Timeout;
}

/** The call a round belongs to: a token is bound to its tool name and arguments. */
export interface RoundCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/**
 * One leg of a call on its upstream server: `round` is `{}` for a first leg, or the answers and the
 * upstream's `requestState` of a 2026-07-28 upstream's round. Must settle when the leg ends.
 */
export type RunLeg = (
  call: DownstreamCall,
  signal: AbortSignal,
  round: InputRound,
) => Promise<CallToolResult>;

/** What a retry's token opened to: a call parked here, or an upstream round any replica can send. */
export type Retry =
  | { readonly kind: "parked"; readonly id: string; readonly parked: Parked }
  | { readonly kind: "upstream"; readonly round: InputRound };

/** The key of the one question of a parked call's round in `inputRequests` / `inputResponses`. */
const KEY = "upstream";
/** Rounds the gateway answers by itself in a row (questions this client cannot be asked) before giving up. */
const MAX_SELF_ANSWERED = 10;

const CAPABILITY: Record<string, string> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/**
 * Elicitation and sampling for downstream clients of the 2026-07-28 protocol, which has no
 * server-to-client requests: a tool call whose upstream server asks a question returns an
 * `input_required` result carrying it, and the client's retry (with its answers in `inputResponses`
 * and our `requestState` token) continues the call. The token is sealed (see sealed-state.ts): bound
 * to the client's credential, the tool and its arguments, and the input timeout.
 *
 * - An upstream of the 2026-07-28 protocol asks by answering `input_required` itself: nothing is kept
 *   here, its questions go to the client and its own `requestState` travels inside our token, so any
 *   replica with the same keys resumes the call by sending the client's answers upstream.
 * - An upstream of the 2025 era asks mid-call: the upstream call stays parked on this replica and the
 *   token names it. A client that does not come back within `timeoutMs` gets its question answered by
 *   the default (see forward.ts) and its call cancelled.
 */
export class InputRounds {
  readonly #parked = new Map<string, Parked>();
  readonly #timeoutMs: number;
  readonly #keys: StateKeys;
  /** Who waits for no call to be parked (a drain). */
  #idleWaiters: (() => void)[] = [];
  /** This replica, named in the tokens of calls parked here (cluster mode); see `locate`. */
  #replica: () => ReplicaAddress | undefined = () => undefined;

  constructor(timeoutMs: number, keys: StateKeys = processStateKeys()) {
    this.#timeoutMs = timeoutMs;
    this.#keys = keys;
  }

  /**
   * Names this replica (its id and the URL other replicas forward to) in the tokens of the calls
   * parked here, so a retry that reaches another replica is forwarded here (see cluster-entry.ts).
   * @internal Called by the gateway once it listens, not by programs.
   */
  locate(replica: () => ReplicaAddress | undefined): void {
    this.#replica = replica;
  }

  /**
   * The replica holding the parked call a request's `requestState` continues, when that is a token
   * of ours for a call parked on some replica; the owner checks the token in full.
   */
  ownerOf(body: unknown): ReplicaAddress | undefined {
    const request = body as { method?: unknown; params?: { requestState?: unknown } } | undefined;
    if (request?.method !== "tools/call") return undefined;
    const token = request.params?.requestState;
    if (typeof token !== "string") return undefined;
    const round = peekRound(this.#keys, token)?.round;
    return round?.kind === "parked" ? round.replica : undefined;
  }

  /** The capabilities a 2026-07-28 request's client declared in its envelope. */
  static capabilitiesOf(ctx: ServerContext): Record<string, unknown> | undefined {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    return envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  }

  /** Whether this request is a 2026-07-28 one whose client declared the capability for `method`. */
  static canAsk(ctx: ServerContext, method: string): boolean {
    const capabilities = InputRounds.capabilitiesOf(ctx);
    const capability = CAPABILITY[method];
    return capabilities !== undefined && capability !== undefined && capabilities[capability] != null;
  }

  /** Whether the request carries a `requestState` (a retry), which `open` must take. */
  static isRetry(ctx: ServerContext): boolean {
    return typeof ctx.mcpReq.requestState() === "string";
  }

  /**
   * Opens a retry's token for this client and call: the parked call it continues, or the upstream
   * round to send (the client's answers and the upstream's state). Throws the refusal otherwise.
   */
  open(owner: string, call: RoundCall, ctx: ServerContext): Retry {
    const token = ctx.mcpReq.requestState();
    if (typeof token !== "string") throw unknownRequestState();
    const opened = openRound(this.#keys, token, this.#bound(owner, call));
    if (!opened.ok) throw refusal(opened.why);
    const round = opened.sealed.round;
    if (round.kind === "upstream") {
      return { kind: "upstream", round: upstreamRetry(round, ctx.mcpReq.inputResponses) };
    }
    const parked = this.#parked.get(round.id);
    // Another client's call is treated exactly like an unknown one.
    if (!parked || parked.owner !== owner) throw unknownRequestState();
    return { kind: "parked", id: round.id, parked };
  }

  /**
   * Starts a call (or the next leg of a 2026-07-28 upstream's round) that may ask questions. `run`
   * gets what the forwarder needs to ask this client and the signal that cancels the call.
   */
  start(
    owner: string,
    call: RoundCall,
    ctx: ServerContext,
    run: RunLeg,
    round: InputRound = {},
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
    const downstream: DownstreamCall = {
      elicit: (params) => ask<ElicitResult>({ method: "elicitation/create", params }, "elicitation/create"),
      sample: (params) =>
        ask<SamplingResult>({ method: "sampling/createMessage", params }, "sampling/createMessage"),
      elicitModes: () => elicitationModes(InputRounds.capabilitiesOf(ctx)),
    };
    const canAsk = (method: string) => InputRounds.canAsk(ctx, method);
    // Rounds of questions the client cannot be asked are answered here, by default, and sent again.
    const legs = async () => {
      let next = round;
      for (let leg = 0; ; leg++) {
        const result = await run(downstream, stop.signal, next);
        const split = upstreamRound(result, canAsk);
        const selfAnswered =
          split?.kind === "asks" &&
          Object.keys(split.asked).length === 0 &&
          Object.keys(split.answered).length > 0;
        if (!selfAnswered || leg >= MAX_SELF_ANSWERED) return result;
        next = { inputResponses: split.answered, requestState: split.state };
      }
    };
    // Taken before the first leg runs: a question it asks at once (a policy approval, asked before the
    // call is sent) replaces `parked.next` synchronously, and must not be missed.
    const first = parked.next;
    (parked as { result: Promise<CallToolResult> }).result = legs().finally(() => wake(undefined));
    return this.#round(parked, owner, call, ctx, first);
  }

  /** A retry of a parked call: answers its question and waits for its result or its next question. */
  resume(
    retry: Extract<Retry, { kind: "parked" }>,
    call: RoundCall,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    const { id, parked } = retry;
    // Two retries of one token: the first takes the call, the second finds it gone.
    if (this.#parked.get(id) !== parked) throw unknownRequestState();
    this.#unpark(id);
    clearTimeout(parked.timer);
    const question = parked.pending;
    parked.pending = undefined;
    const response = ctx.mcpReq.inputResponses?.[KEY];
    if (question) {
      if (response && typeof response === "object") question.answer(response);
      else question.fail(questionRefused.noAnswer());
    }
    return this.#round(parked, parked.owner, call, ctx);
  }

  /** How many calls wait for their client's next round (2025-era upstreams only: see the class comment). */
  get parkedCount(): number {
    return this.#parked.size;
  }

  /** Resolves once no call is parked (answered, expired or closed): what a drain waits for. */
  idle(): Promise<void> {
    if (this.#parked.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Closes every parked call (gateway shutdown). */
  close(): void {
    for (const [id, parked] of this.#parked) this.#expire(id, parked, parkedCallEnd.closing);
  }

  #bound(owner: string, call: RoundCall) {
    return { credential: credentialHash(owner), call: callHash(call.tool, call.args) };
  }

  #seal(owner: string, call: RoundCall, round: SealedRound["round"]): string {
    return sealRound(this.#keys, this.#bound(owner, call), round, this.#timeoutMs);
  }

  async #round(
    parked: Parked,
    owner: string,
    call: RoundCall,
    ctx: ServerContext,
    next: Promise<Question | undefined> = parked.next,
  ): Promise<CallToolResult | InputRequiredResult> {
    // While a round is open, the client cancelling it cancels the upstream call.
    const cancel = () => parked.stop.abort(ctx.mcpReq.signal.reason);
    ctx.mcpReq.signal.addEventListener("abort", cancel, { once: true });
    try {
      const question = await next;
      if (!question) return this.#ended(await parked.result, owner, call, ctx);
      const id = randomUUID();
      this.#parked.set(id, parked);
      parked.timer = setTimeout(
        () => this.#expire(id, parked, parkedCallEnd.noAnswerInTime),
        this.#timeoutMs,
      );
      parked.timer.unref();
      return {
        resultType: "input_required",
        inputRequests: { [KEY]: question.request },
        requestState: this.#seal(owner, call, { kind: "parked", id, replica: this.#replica() }),
      };
    } finally {
      ctx.mcpReq.signal.removeEventListener("abort", cancel);
    }
  }

  /**
   * A leg's end: its result, or (an upstream that answered `input_required` itself) its questions for
   * the client under a token that carries the upstream's state, with nothing kept here.
   */
  #ended(
    result: CallToolResult,
    owner: string,
    call: RoundCall,
    ctx: ServerContext,
  ): CallToolResult | InputRequiredResult {
    const split = upstreamRound(result, (method) => InputRounds.canAsk(ctx, method));
    if (!split) return result;
    if (split.kind === "unanswerable") return split.result;
    const requestState = this.#seal(owner, call, {
      kind: "upstream",
      state: split.state,
      keys: Object.keys(split.asked),
      answered: split.answered,
    });
    return Object.keys(split.asked).length === 0
      ? { resultType: "input_required", requestState }
      : { resultType: "input_required", inputRequests: split.asked, requestState };
  }

  #unpark(id: string): void {
    this.#parked.delete(id);
    if (this.#parked.size > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #expire(id: string, parked: Parked, why: string): void {
    if (this.#parked.get(id) !== parked) return;
    this.#unpark(id);
    clearTimeout(parked.timer);
    parked.pending?.fail(questionRefused.ended(why));
    parked.pending = undefined;
    parked.stop.abort(questionRefused.ended(why));
    parked.result.catch(() => undefined);
  }
}

function refusal(why: OpenFailure) {
  return requestStateRefused[why]();
}

/** The upstream leg a retry sends: the client's answers to the questions asked, with the gateway's own. */
function upstreamRetry(
  round: Extract<SealedRound["round"], { kind: "upstream" }>,
  responses: Record<string, unknown> | undefined,
): InputRound {
  const inputResponses: Record<string, unknown> = { ...round.answered };
  for (const key of round.keys) {
    const response = responses?.[key];
    if (response !== undefined) inputResponses[key] = response;
  }
  return { inputResponses, requestState: round.state };
}
