import { dirname } from "node:path";
import * as z from "zod";
import { approvalsSchema, readApprovalSetting } from "./approval-settings.js";
import type { Raw } from "./fields.js";
import { guardrailsSchema, readGuardrailSetting } from "./guardrail-settings.js";
import type { BridgeSettings } from "./model.js";
import { auditSchema, policySchema, readAuditSetting, readPolicySetting } from "./policy-settings.js";
import { QUARANTINE_MODES } from "./quarantine.js";
import type { StructuredKey } from "./structured.js";

/** The trust settings `policy`, `audit`, `approvals`, `guardrails` and `quarantine`, as listed in the schema and docs/config.md. */
export const TRUST_SETTINGS = {
  policy: {
    keys: ["policy"],
    schema: policySchema,
    doc: "`{ default, rules }`: which tool calls are allowed, denied, asked about or rate-limited, first matching rule wins (see docs/security.md#policy); a managed policy file (`MCP_BRIDGE_POLICY_FILE`, `/etc/mcp-bridge/policy.json`) is evaluated first and cannot be loosened; a policy that cannot be read denies every call",
  },
  audit: {
    keys: ["audit"],
    schema: auditSchema,
    doc: "`{ file, full, maxBytes }`: a hash-chained JSONL record of every call and policy decision, arguments and results as SHA-256 digests unless `full` (see docs/security.md#audit-log); check it with `mcp-bridge audit verify`",
  },
  approvals: {
    keys: ["approvals"],
    schema: approvalsSchema,
    doc: "`{ timeout, client, page, port, webhook: { url, secret, callbackUrl } }`: where a policy `ask` goes when the caller's client cannot be asked (an elicitation): a local page on 127.0.0.1 and/or a webhook answered on an HMAC-signed callback; no answer within `timeout` (default 2m) denies (see docs/security.md#approvals)",
  },
  guardrails: {
    keys: ["guardrails"],
    schema: () => z.union([z.boolean(), guardrailsSchema()]),
    doc: "`true` or `{ secrets, hiddenText, instructions, rules, hook }`: checks on call arguments, results, tool descriptions and prompts, each `allow`, `mask`, `block` or `ask`, per server and tool, and an external check hook (see docs/security.md#guardrails); off when unset; a setting that cannot be read refuses every call",
  },
  quarantine: {
    keys: ["quarantine"],
    schema: () => z.enum(QUARANTINE_MODES),
    doc: "`imports` (default): servers read through `imports` from other hosts' files are held, listed with no tools and never started, until approved with `mcp-bridge quarantine approve` (per definition digest); `all`: also the servers of a main config file mcp-bridge does not own (set by `MCP_BRIDGE_QUARANTINE` or the host's settings, never by that file); `off`: nothing is held (see docs/security.md#quarantine-of-servers-nobody-approved)",
  },
} satisfies Record<string, StructuredKey>;

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };

/** Reads `policy`, `audit` and `approvals` of a settings table into `settings`; an unusable one is also a warning. */
export function readTrustSettings(
  raw: Raw,
  file: string | undefined,
  settings: Mutable<BridgeSettings>,
  warn: (field: string, message: string) => void,
): void {
  if (raw.policy !== undefined) {
    settings.policy = readPolicySetting(raw.policy);
    const problem = settings.policy.unusable;
    if (problem) warn("policy", `Setting "policy" cannot be used (${problem}); every call is denied`);
  }
  if (raw.guardrails !== undefined) {
    const guardrails = readGuardrailSetting(raw.guardrails);
    if (guardrails) settings.guardrails = guardrails;
    const problem = guardrails?.unusable;
    if (problem)
      warn("guardrails", `Setting "guardrails" cannot be used (${problem}); every call is refused`);
  }
  if (raw.audit !== undefined) {
    settings.audit = readAuditSetting(raw.audit, file === undefined ? undefined : dirname(file));
    const problem = settings.audit.unusable;
    if (problem) warn("audit", `Setting "audit" cannot be used (${problem}); every call is denied`);
  }
  if (raw.quarantine !== undefined) {
    const mode = z.enum(QUARANTINE_MODES).safeParse(raw.quarantine);
    if (mode.success) settings.quarantine = mode.data;
    // A typo must not turn the quarantine off: the default (imports held) stays.
    else
      warn(
        "quarantine",
        `Setting "quarantine" must be one of ${QUARANTINE_MODES.join(", ")}; imports stay held`,
      );
  }
  if (raw.approvals !== undefined) {
    settings.approvals = readApprovalSetting(raw.approvals);
    const problem = settings.approvals.unusable;
    if (problem)
      warn("approvals", `Setting "approvals" cannot be used (${problem}); every \`ask\` is denied`);
  }
}
