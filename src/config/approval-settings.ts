import * as z from "zod";
import { parseDuration } from "../util/duration.js";
import { durationSchema } from "./structured.js";

/**
 * The `approvals` setting: where a policy `ask` (or a guardrail's) goes when the host gave no
 * approval callback and the caller's own client cannot be asked with an elicitation. A local page
 * (served on 127.0.0.1 at an unguessable one-time path) and a webhook (POST of the question; the
 * answer comes back on a callback URL signed with HMAC over the approval id). Nobody answering within
 * `timeout` denies. Read like `policy`: a setting that cannot be read denies every `ask` (fail closed).
 */

export interface ApprovalWebhookSettings {
  /** Where the question is POSTed. */
  readonly url: string;
  /** Signs the POST (`X-Mcp-Bridge-Signature`) and the callback URL (HMAC-SHA256). */
  readonly secret: string;
  /** The base URL the callback is reached at, when not the local listener (a tunnel, a proxy). */
  readonly callbackUrl: string | undefined;
}

export interface ApprovalSettings {
  /** How long a question waits for an answer before the call is denied. */
  readonly timeoutMs: number;
  /** Ask the calling client (an elicitation) when it can be; false: the page and webhook only. */
  readonly client: boolean;
  /** Serve the local approval page (its URL is logged and offered as a URL-mode elicitation). */
  readonly page: boolean;
  /** The local listener's port (127.0.0.1); 0 picks a free one. */
  readonly port: number;
  readonly webhook: ApprovalWebhookSettings | undefined;
  /** Set when the setting could not be read: every `ask` is denied with this reason. */
  readonly unusable?: string;
}

export const APPROVAL_DEFAULTS = { timeoutMs: 120_000, port: 0 } as const;

export const approvalsSchema = () =>
  z
    .object({
      timeout: durationSchema()
        .optional()
        .describe("How long a question waits before it is denied (default 2m)"),
      client: z
        .boolean()
        .optional()
        .describe("Ask the calling client with an elicitation when it declared one (default true)"),
      page: z.boolean().optional().describe("Serve a local approval page on 127.0.0.1 (default false)"),
      port: z
        .number()
        .int()
        .min(0)
        .max(65_535)
        .optional()
        .describe("The local listener's port (default: any free one)"),
      webhook: z
        .object({
          url: z.url().describe("Where the question is POSTed (JSON)"),
          secret: z
            .string()
            .min(16)
            .describe("HMAC-SHA256 key of the POST's signature and of the callback URL"),
          callbackUrl: z
            .url()
            .optional()
            .describe("Base URL the answer is POSTed back to (default: the local listener)"),
        })
        .strict()
        .optional(),
    })
    .strict();

/** A raw `approvals` value; one that cannot be read is kept as unusable (every `ask` denied). */
export function readApprovalSetting(value: unknown): ApprovalSettings {
  const unusable = (problem: string): ApprovalSettings => ({
    ...APPROVAL_DEFAULTS,
    client: false,
    page: false,
    webhook: undefined,
    unusable: problem,
  });
  const parsed = approvalsSchema().safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return unusable(`${issue?.path.join(".") || "approvals"}: ${issue?.message ?? "invalid"}`);
  }
  const { timeout, client, page, port, webhook } = parsed.data;
  let timeoutMs: number = APPROVAL_DEFAULTS.timeoutMs;
  if (timeout !== undefined) {
    timeoutMs = parseDuration(timeout);
    if (timeoutMs <= 0) return unusable("timeout: must be more than 0");
  }
  return {
    timeoutMs,
    client: client ?? true,
    page: page ?? false,
    port: port ?? APPROVAL_DEFAULTS.port,
    webhook: webhook && { url: webhook.url, secret: webhook.secret, callbackUrl: webhook.callbackUrl },
  };
}
