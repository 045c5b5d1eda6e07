import type {
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
} from "@modelcontextprotocol/server";
import type { ElicitationHandler, ElicitationRequest, ElicitationResponse } from "../../../bridge/api.js";
import { declineElicitation } from "../../../bridge/features/elicitation.js";
import type { ServerLogMessage } from "../../../bridge/features/logging.js";
import type { SamplingHandler } from "../../../bridge/features/sampling.js";
import { errorText } from "../../../util/text-of.js";
import { GATEWAY_DEFAULTS } from "../gateway-defaults.js";
import type { StateKeys } from "../identity/sealed-state.js";
import { questionRefused, samplingNotForwarded } from "../wire-errors.js";
import { type DownstreamCall, InputRounds } from "./input-rounds.js";

export type { DownstreamCall } from "./input-rounds.js";

/**
 * A person may answer an elicitation: longer than an ordinary request, but bounded, because a client
 * that never answers must not hold the upstream call (and its slot) forever.
 */
export const FORWARD_TIMEOUT_MS = GATEWAY_DEFAULTS.forwardTimeoutMs;

export interface RequestForwarderOptions {
  /** Answers an elicitation no downstream client can (default: declined). */
  readonly elicitation?: ElicitationHandler;
  /** Answers a sampling request no downstream client can (default: refused). */
  readonly sampling?: SamplingHandler;
  /** How long a question waits for its client's answer, in ms (default 10 min). */
  readonly timeoutMs?: number;
  /**
   * The keys that seal `requestState` tokens, shared by every replica (see `readStateKeys`); without
   * them a random key of this process: a token then works on this replica only.
   */
  readonly stateKeys?: StateKeys;
}

/**
 * Elicitation and sampling from upstream servers, forwarded to the downstream client whose call caused
 * them. The bridge's handlers know only the asking server, so a request goes to the downstream call
 * running on that server when it is the only downstream request of any kind (tool call, read, prompt,
 * completion, subscription) running there: with none or several (the asker cannot be told
 * apart, and a question must never reach another client), the gateway's default answers. A client
 * that did not declare the capability, or fails to answer, also gets the default: an elicitation is
 * declined, a sampling request refused with an error naming the cause.
 */
export class RequestForwarder {
  readonly #calls = new Map<string, Set<DownstreamCall>>();
  readonly #fallback: ElicitationHandler;
  readonly #samplingFallback: SamplingHandler | undefined;
  /** The calls of 2026-07-28 clients waiting for their client's answer (see input-rounds.ts). */
  readonly rounds: InputRounds;

  constructor(options: RequestForwarderOptions = {}) {
    this.#fallback = options.elicitation ?? declineElicitation;
    this.#samplingFallback = options.sampling;
    this.rounds = new InputRounds(options.timeoutMs ?? FORWARD_TIMEOUT_MS, options.stateKeys);
  }

  /**
   * Registers a downstream call running on `server`; the returned function ends it.
   * @internal Called by the gateway's request handlers, not by programs.
   */
  track(server: string, call: DownstreamCall): () => void {
    let calls = this.#calls.get(server);
    if (!calls) {
      calls = new Set();
      this.#calls.set(server, calls);
    }
    calls.add(call);
    return () => {
      calls.delete(call);
      if (calls.size === 0 && this.#calls.get(server) === calls) this.#calls.delete(server);
    };
  }

  /**
   * Marks a downstream request other than a tool call (a read, a prompt, a completion, a subscription)
   * as running on `server`: a question the server asks meanwhile may be that request's doing, so it is
   * never tied to another client's call. Such a request cannot be asked itself: the default answers.
   * @internal Called by the gateway's request handlers, not by programs.
   */
  occupy(server: string): () => void {
    const cannotAsk = () => Promise.reject(questionRefused.notAskable());
    return this.track(server, { elicit: cannotAsk, sample: cannotAsk });
  }

  /** Pass as the bridge's `onElicitation`. */
  readonly elicitation: ElicitationHandler = async (request) => {
    const caller = this.#only(request.server);
    if (!caller) return this.#fallback(request);
    try {
      return toResponse(await caller.elicit(toParams(request)));
    } catch {
      // The client has no elicitation capability, went away or did not answer in time.
      return this.#fallback(request);
    }
  };

  /** Pass as the bridge's `onSampling` (a server must still be allowed to sample in the config). */
  readonly sampling: SamplingHandler = async (request, context) => {
    const caller = this.#only(context.server);
    let cause = "no gateway client with a call running on it (or several) to ask";
    if (caller) {
      try {
        return await caller.sample(request);
      } catch (error) {
        cause = `the gateway's client could not sample: ${errorText(error)}`;
      }
    }
    if (this.#samplingFallback) return this.#samplingFallback(request, context);
    throw samplingNotForwarded({ server: context.server, cause });
  };

  /**
   * Does nothing; kept for programs that pass it to the bridge's `serverLog` event. Upstream log
   * messages are not routed by server, as questions are: "the one call running on that server" may be
   * another client's while the message is about work a call that already ended started. The gateway
   * itself forwards a message to the client whose call it came with (tied by the call's own response
   * stream, see upstream-logs.ts); the rest stay in the gateway's own log.
   */
  readonly log = (_message: ServerLogMessage): void => {};

  #only(server: string): DownstreamCall | undefined {
    const calls = this.#calls.get(server);
    if (calls?.size !== 1) return undefined;
    const [only] = calls;
    return only;
  }
}

function toParams(request: ElicitationRequest): ElicitRequestFormParams | ElicitRequestURLParams {
  if (request.mode === "url") {
    return {
      mode: "url",
      message: request.message,
      url: request.url ?? "",
      elicitationId: request.elicitationId ?? "",
    };
  }
  return {
    mode: "form",
    message: request.message,
    requestedSchema: (request.requestedSchema ?? {
      type: "object",
      properties: {},
    }) as ElicitRequestFormParams["requestedSchema"],
  };
}

/** The client's answer as the bridge's handler returns it (the bridge checks it against the schema). */
function toResponse(result: ElicitResult): ElicitationResponse {
  if (result.action === "accept") {
    const content = result.content;
    return { action: "accept", content: content && typeof content === "object" ? { ...content } : {} };
  }
  return { action: result.action === "cancel" ? "cancel" : "decline" };
}
