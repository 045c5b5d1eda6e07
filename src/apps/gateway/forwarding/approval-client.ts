import type {
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
} from "@modelcontextprotocol/server";
import type { ApprovalClient } from "../../../bridge/api.js";

/**
 * A gateway client as the bridge's way to ask a person about a call (a policy `ask`, a guardrail's):
 * a form-mode elicitation with one yes/no field when the client declared form mode, and the approval
 * page's URL as a URL-mode elicitation when it declared URL mode. A client that declared neither is
 * not asked; the bridge then goes to the `approvals` setting's page and webhook.
 */

/** The elicitation modes a client declared (`elicitation: {}` is form mode, as before modes existed). */
export interface ElicitationModes {
  readonly form: boolean;
  readonly url: boolean;
}

export function elicitationModes(capabilities: unknown): ElicitationModes {
  const elicitation = (capabilities as { elicitation?: Record<string, unknown> } | undefined)?.elicitation;
  if (elicitation === null || typeof elicitation !== "object") return { form: false, url: false };
  const bare = Object.keys(elicitation).length === 0;
  return { form: bare || elicitation.form != null, url: elicitation.url != null };
}

const approveSchema = () => ({
  type: "object" as const,
  properties: {
    approve: {
      type: "boolean" as const,
      title: "Allow this call",
      description: "Run the tool with these arguments",
    },
  },
  required: ["approve"],
});

/** What of a downstream call (input-rounds.ts's DownstreamCall) asking a person needs. */
interface AskingCall {
  readonly elicit: (params: ElicitRequestFormParams | ElicitRequestURLParams) => Promise<ElicitResult>;
  readonly elicitModes?: () => ElicitationModes;
}

/** The approval channel of a downstream call; undefined when its client cannot be asked. */
export function approvalClientOf(call: AskingCall | undefined): ApprovalClient | undefined {
  const modes = call?.elicitModes?.();
  if (!call || !modes || (!modes.form && !modes.url)) return undefined;
  const form = async (message: string, signal: AbortSignal) => {
    const answer: ElicitResult = await withSignal(
      call.elicit({ mode: "form", message, requestedSchema: approveSchema() }),
      signal,
    );
    return answer.action === "accept" && answer.content?.approve === true;
  };
  const url = async (url: string, message: string, signal: AbortSignal) => {
    const elicitationId = crypto.randomUUID();
    await withSignal(call.elicit({ mode: "url", message, url, elicitationId }), signal);
  };
  return { form: modes.form ? form : undefined, url: modes.url ? url : undefined };
}

/** The promise, or a rejection once `signal` aborts (the elicitation itself is bounded by its call). */
function withSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}
