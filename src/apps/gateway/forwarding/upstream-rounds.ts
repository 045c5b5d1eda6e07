import type { CallToolResult, InputRequest } from "@modelcontextprotocol/server";
import { inputNotAnswerable } from "../wire-errors.js";

/** An upstream's `input_required` result, as the gateway passes it on. */
export type UpstreamRoundSplit =
  | {
      readonly kind: "asks";
      /** The questions the client is asked (it declared their capability), under the upstream's keys. */
      readonly asked: Record<string, InputRequest>;
      /** The answers the gateway gives itself, by default, to the questions this client cannot be asked. */
      readonly answered: Record<string, unknown>;
      /** The upstream's own `requestState`, echoed back to it on the next leg. */
      readonly state: string | undefined;
    }
  /** A question nobody can answer by default (sampling of a client without it): the call's result. */
  | { readonly kind: "unanswerable"; readonly result: CallToolResult };

/**
 * A leg's result from a 2026-07-28 upstream (called in manual mode, see `CallOptions.inputRound`):
 * undefined when it is a final result; otherwise its questions split between the client and the
 * gateway's defaults, as the SDK's own handlers answer them for a client that cannot be asked (an
 * elicitation is declined, roots are none).
 */
export function upstreamRound(
  result: CallToolResult,
  canAsk: (method: string) => boolean,
): UpstreamRoundSplit | undefined {
  const raw = result as Record<string, unknown>;
  if (raw.resultType !== "input_required") return undefined;
  const requests = (raw.inputRequests ?? {}) as Record<string, InputRequest>;
  const asked: Record<string, InputRequest> = {};
  const answered: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    const method = (request as { method?: unknown }).method;
    if (typeof method === "string" && canAsk(method)) asked[key] = request;
    else if (method === "elicitation/create") answered[key] = { action: "decline" };
    else if (method === "roots/list") answered[key] = { roots: [] };
    else return { kind: "unanswerable", result: inputNotAnswerable(String(method)) };
  }
  const state = typeof raw.requestState === "string" ? raw.requestState : undefined;
  return { kind: "asks", asked, answered, state };
}
