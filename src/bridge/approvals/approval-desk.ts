import { createHmac, randomBytes, randomUUID } from "node:crypto";
import type { ApprovalSettings } from "../../config/approval-settings.js";
import type { Logger } from "../../util/logger.js";
import { errorText } from "../../util/text-of.js";
import type { ApprovalAnswer, ApprovalClient } from "../api.js";
import { questionText, type ShownQuestion } from "./approval-question.js";
import { ApprovalListener, callbackSignature, type ListenerAnswer } from "./approval-server.js";

/**
 * The `approvals` setting's channels for one config: the local page and the webhook. A question goes
 * to every channel configured at once and the first answer wins; the others are withdrawn (the page's
 * one-time path and the callback stop answering). Nobody answering within the timeout, or the call
 * being cancelled, denies.
 */

/** How long the webhook's receiver has to accept the POST (its answer comes later, on the callback). */
const WEBHOOK_POST_TIMEOUT_MS = 10_000;

export class ApprovalDesk {
  readonly settings: ApprovalSettings;
  readonly #logger: Logger;
  #listener: ApprovalListener | undefined;

  constructor(settings: ApprovalSettings, logger: Logger) {
    this.settings = settings;
    this.#logger = logger;
  }

  /** Whether a question can go anywhere (a page or a webhook is configured). */
  get open(): boolean {
    return (
      this.settings.unusable === undefined && (this.settings.page || this.settings.webhook !== undefined)
    );
  }

  /**
   * Asks a person through the page and/or the webhook; a client that declared URL-mode elicitation
   * is pointed at the page. Resolves with the first answer, or a denial on timeout or cancel.
   */
  async ask(
    question: ShownQuestion,
    client: ApprovalClient | undefined,
    signal?: AbortSignal,
  ): Promise<ApprovalAnswer> {
    const listening = await this.#listen(question);
    if (!("listener" in listening)) return listening;
    const { listener, base } = listening;
    const stop = new AbortController();
    const forgets: (() => void)[] = [];
    const answered = new Promise<ApprovalAnswer>((resolve) => {
      const waiting = {
        question,
        answer: (answer: ListenerAnswer, channel: "page" | "webhook") =>
          resolve({ approved: answer.approved, by: answer.by ?? channel, channel }),
      };
      const timer = setTimeout(() => resolve(timedOut), this.settings.timeoutMs);
      stop.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      signal?.addEventListener("abort", () => resolve(cancelled), { once: true });
      if (signal?.aborted) resolve(cancelled);
      const id = randomUUID();
      if (this.settings.page) {
        const token = randomBytes(32).toString("base64url");
        forgets.push(listener.page(token, waiting));
        this.#announce(`${base}/approve/${token}`, question, client, stop.signal);
      }
      const webhook = this.settings.webhook;
      if (webhook) {
        forgets.push(listener.callback(id, webhook.secret, waiting));
        const callback = `${webhook.callbackUrl?.replace(/\/$/, "") ?? base}/callback/${id}?sig=${callbackSignature(webhook.secret, id)}`;
        void this.#post(id, question, callback).then((failed) => {
          // The webhook was the only way to ask: nobody will answer.
          if (failed && !this.settings.page) resolve({ approved: false, by: failed, channel: "none" });
        });
      }
    });
    try {
      return await answered;
    } finally {
      stop.abort();
      for (const forget of forgets) forget();
    }
  }

  /** The listener and its base URL, or the denial when it cannot listen (a port another program holds). */
  async #listen(
    question: ShownQuestion,
  ): Promise<{ listener: ApprovalListener; base: string } | ApprovalAnswer> {
    this.#listener ??= new ApprovalListener(this.settings.port);
    const listener = this.#listener;
    try {
      return { listener, base: await listener.base() };
    } catch (error) {
      this.#listener = undefined;
      const why = `the approval listener could not start: ${errorText(error)}`;
      const { server, tool } = question;
      this.#logger.warn(`A call needing approval was denied: ${why}`, { server, tool });
      return { approved: false, by: `nobody (${why})`, channel: "none" };
    }
  }

  close(): void {
    this.#listener?.close();
    this.#listener = undefined;
  }

  /** Tells the person where the page is: the host's log and, when declared, the client (URL mode). */
  #announce(
    url: string,
    question: ShownQuestion,
    client: ApprovalClient | undefined,
    signal: AbortSignal,
  ): void {
    const { server, tool, caller } = question;
    this.#logger.warn(`A call waits for approval: open ${url}`, { server, tool, caller });
    client?.url?.(url, questionText(question), signal).catch(() => undefined);
  }

  /** POSTs the question to the webhook; resolves with why it failed, or undefined once delivered. */
  async #post(id: string, question: ShownQuestion, callback: string): Promise<string | undefined> {
    const webhook = this.settings.webhook;
    if (!webhook) return undefined;
    const expiresAt = new Date(Date.now() + this.settings.timeoutMs).toISOString();
    const body = JSON.stringify({ id, ...question, callback, expiresAt });
    const signature = createHmac("sha256", webhook.secret).update(body).digest("hex");
    try {
      const response = await fetch(webhook.url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mcp-bridge-signature": `sha256=${signature}` },
        body,
        signal: AbortSignal.timeout(WEBHOOK_POST_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.ok) return undefined;
      return this.#failed(question, `HTTP ${response.status}`);
    } catch (error) {
      return this.#failed(question, errorText(error));
    }
  }

  #failed(question: ShownQuestion, why: string): string {
    const { server, tool } = question;
    this.#logger.warn(
      "The approval webhook could not be reached; the call is denied unless the page answers",
      {
        server,
        tool,
        error: why,
      },
    );
    return `nobody (the webhook failed: ${why})`;
  }
}

const timedOut: ApprovalAnswer = { approved: false, by: "nobody (timed out)", channel: "timeout" };
const cancelled: ApprovalAnswer = {
  approved: false,
  by: "nobody (the call was cancelled)",
  channel: "timeout",
};
