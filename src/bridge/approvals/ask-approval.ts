import { APPROVAL_DEFAULTS } from "../../config/approval-settings.js";
import { errorText } from "../../util/text-of.js";
import type { ApprovalAnswer, ApprovalClient, ApproveCall, CallApprovalRequest } from "../api.js";
import type { BridgeState } from "../bridge-state.js";
import { ApprovalDesk } from "./approval-desk.js";
import { questionText, shownQuestion } from "./approval-question.js";

/**
 * The one way to ask a person whether a call may run, for the call policy's `ask` and any other check
 * that wants a person's yes (guardrails): the question in, allowed or denied and who said so out.
 * The first channel that can ask is used:
 *
 * 1. the host's approval callback (`CallOptions.approveCall`, else `BridgeOptions.approveCall`): a
 *    host with its own person (chat's terminal);
 * 2. the caller's own client, when it declared form-mode elicitation (a gateway passes it);
 * 3. the `approvals` setting's local page and webhook (the page also offered to a client that
 *    declared URL-mode elicitation).
 *
 * Nobody to ask is a denial (`channel: "none"`); so is no answer within `approvals.timeout`.
 */

/** How this call can reach a person, besides the bridge's own settings. */
export interface ApprovalRoute {
  readonly approveCall?: ApproveCall;
  readonly approvalClient?: ApprovalClient;
  readonly signal?: AbortSignal;
}

export async function askApproval(
  state: BridgeState,
  request: CallApprovalRequest,
  route: ApprovalRoute,
): Promise<ApprovalAnswer> {
  const desk = deskOf(state);
  // A setting that cannot be read must not leave a way around it (fail closed, as `policy`).
  if (desk?.settings.unusable !== undefined)
    return { approved: false, by: "nobody (the approvals setting cannot be used)", channel: "none" };
  const host = route.approveCall ?? state.options.approveCall;
  if (host) return askHost(state, host, request);
  const question = shownQuestion(request, state.options.secrets);
  // `client: false`: someone other than the caller's own person must answer.
  const form = desk?.settings.client === false ? undefined : route.approvalClient?.form;
  if (form) {
    const timeoutMs = desk?.settings.timeoutMs ?? APPROVAL_DEFAULTS.timeoutMs;
    return askClient(form, questionText(question), question.caller, timeoutMs, route.signal);
  }
  if (desk?.open) {
    const client = desk.settings.client ? route.approvalClient : undefined;
    return desk.ask(question, client, route.signal);
  }
  return { approved: false, by: "nobody", channel: "none" };
}

async function askHost(
  state: BridgeState,
  host: ApproveCall,
  request: CallApprovalRequest,
): Promise<ApprovalAnswer> {
  try {
    const answer = await host(request);
    if (typeof answer === "boolean") return { approved: answer, by: "host", channel: "host" };
    return {
      approved: answer?.approved === true,
      by: answer?.by ?? "host",
      channel: answer?.channel ?? "host",
    };
  } catch (problem) {
    const { server, tool } = request;
    state.logger.warn("A call approval callback threw; the call is denied", {
      server,
      tool,
      error: errorText(problem),
    });
    return { approved: false, by: "nobody (the approval callback failed)", channel: "host" };
  }
}

async function askClient(
  form: NonNullable<ApprovalClient["form"]>,
  message: string,
  caller: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<ApprovalAnswer> {
  const bounded = signal
    ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
    : AbortSignal.timeout(timeoutMs);
  try {
    const approved = await form(message, bounded);
    return { approved, by: caller, channel: "client" };
  } catch (problem) {
    const timedOut = bounded.aborted && !signal?.aborted;
    if (timedOut) return { approved: false, by: "nobody (timed out)", channel: "timeout" };
    return {
      approved: false,
      by: `nobody (the client did not answer: ${errorText(problem)})`,
      channel: "client",
    };
  }
}

/** Each bridge's desk, rebuilt when a reload changes the `approvals` setting. */
const desks = new WeakMap<BridgeState, { key: string; desk: ApprovalDesk }>();

function deskOf(state: BridgeState): ApprovalDesk | undefined {
  const settings = state.config.settings.approvals;
  const known = desks.get(state);
  const key = JSON.stringify(settings ?? null);
  if (known?.key === key) return known.desk;
  known?.desk.close();
  desks.delete(state);
  if (!settings) return undefined;
  if (settings.webhook) state.options.secrets.add([settings.webhook.secret]);
  const desk = new ApprovalDesk(settings, state.logger);
  desks.set(state, { key, desk });
  return desk;
}

/** Closes the bridge's approval listener (bridge.close). Questions still open are denied by their timeout. */
export function closeApprovals(state: BridgeState): void {
  desks.get(state)?.desk.close();
  desks.delete(state);
}
