import {
  type Client,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/client";
import type { ResolvedConfig, SamplingPolicy, ServerDefinition } from "../../config/model.js";
import { samplingFailedInClientText } from "../../errors/sampling-errors.js";
import type { Logger } from "../../util/logger.js";
import { errorText } from "../../util/text-of.js";

/** A server's `sampling/createMessage` as the host's handler receives it. */
export type SamplingRequest = CreateMessageRequestParams;
export type SamplingResult = CreateMessageResult | CreateMessageResultWithTools;

export interface SamplingContext {
  /** The server asking (its config name). */
  readonly server: string;
  /** Aborted when the server cancels the request or it runs past its time limit. */
  readonly signal: AbortSignal;
}

/** Fulfils a server's sampling request with the host's LLM. */
export type SamplingHandler = (
  request: SamplingRequest,
  context: SamplingContext,
) => Promise<SamplingResult> | SamplingResult;

/**
 * What registering sampling reads of the features' context (a FeatureContext is one): named here, so
 * that this file, which owns SamplingHandler, imports nothing that imports it.
 */
export interface SamplingSetup {
  readonly logger: Logger;
  readonly options: { readonly onSampling?: SamplingHandler | undefined };
  readonly config: ResolvedConfig;
}

/** The effective policy of one server: allowed only when both the global switch and the server say so. */
export function samplingPolicyOf(
  server: SamplingPolicy | undefined,
  global: SamplingPolicy | undefined,
): { allowed: boolean; maxTokens?: number } {
  const allowed = (global?.enabled ?? true) && (server?.enabled ?? false);
  const maxTokens = server?.maxTokens ?? global?.maxTokens;
  return { allowed, maxTokens };
}

/** The request with `maxTokens` lowered to the configured cap (never raised). */
export function capMaxTokens(request: SamplingRequest, cap: number | undefined): SamplingRequest {
  if (cap === undefined || request.maxTokens <= cap) return request;
  return { ...request, maxTokens: cap };
}

/**
 * Declares sampling (with tool use) to a server that is allowed to sample and answers its
 * `sampling/createMessage` with the host's handler, bounded by the server's call timeout. Without a
 * host handler nothing is registered. A server that is not allowed
 * is not told we can sample; if it asks anyway, it gets an error saying how to allow it. A handler that
 * throws or runs out of time becomes a JSON-RPC error to the server (and a warning in the log); the
 * host is never affected.
 */
export function registerSampling(client: Client, definition: ServerDefinition, context: SamplingSetup): void {
  const handler = context.options.onSampling;
  if (!handler) return;
  const server = definition.name;
  const policy = samplingPolicyOf(definition.sampling, context.config.settings.sampling);
  const timeoutMs = definition.callTimeoutMs;
  const logger = context.logger;
  // Not declared, so a well-behaved server never asks; the SDK answers one that asks anyway with
  // "method not found" (a handler without the capability is refused by the SDK).
  if (!policy.allowed) return;
  client.registerCapabilities({ sampling: { tools: {} } });
  client.setRequestHandler("sampling/createMessage", async (request, ctx) => {
    const signal = AbortSignal.any([ctx.mcpReq.signal, AbortSignal.timeout(timeoutMs)]);
    const params = capMaxTokens(request.params as SamplingRequest, policy.maxTokens);
    try {
      const answer = await raceAbort(Promise.resolve(handler(params, { server, signal })), signal);
      return answer;
    } catch (error) {
      const reason =
        signal.aborted && !ctx.mcpReq.signal.aborted
          ? `the sampling handler did not answer within ${timeoutMs} ms`
          : `the sampling handler failed: ${errorText(error)}`;
      logger.warn(`Sampling request from server "${server}" failed: ${reason}`, { server });
      throw new ProtocolError(ProtocolErrorCode.InternalError, samplingFailedInClientText({ reason }));
    }
  });
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
