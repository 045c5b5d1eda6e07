import { isAbsolute, resolve } from "node:path";
import * as z from "zod";
import { re2js } from "../util/lazy-modules.js";
import { AUDIT_LOG } from "./defaults.js";

/**
 * The `policy` and `audit` settings: their raw shapes (one zod schema each, which is also what the
 * JSON Schema and docs/config.md show) and their readers. A policy or audit setting that cannot be
 * read is not dropped with a warning like other settings: it is kept as `unusable`, and the policy
 * engine then denies every call with that reason (fail closed), since a typo must not turn a deny
 * rule or the audit trail off.
 */

export type PolicyAction = "allow" | "deny" | "ask" | "limit";

export interface PolicyArgumentMatch {
  /** A JSON path into the arguments: `$.a.b`, `$.list[0]`, `$.list[*]`, `$["odd key"]`. */
  readonly path: string;
  /** Matches the whole value (a string, or a number/boolean as text); `*` is any run of characters. */
  readonly glob?: string;
  /** RE2 syntax, searched anywhere in the value unless anchored (`^...$`). */
  readonly regex?: string;
}

export interface PolicyRule {
  /** Server name glob (the config's names). */
  readonly server?: string;
  /** Tool name glob: the server's own tool name, never the exposed (prefixed) one. */
  readonly tool?: string;
  /** Annotation hints the tool must have; an undeclared hint has its MCP default. */
  readonly annotations?: Readonly<Record<string, boolean>>;
  /** Every listed argument must match. */
  readonly args?: readonly PolicyArgumentMatch[];
  /** Caller glob: a gateway client's identity (token name, JWT subject); `""` for local calls. */
  readonly caller?: string;
  readonly action: PolicyAction;
  /** With `action: "limit"`: calls per minute per (rule, caller). */
  readonly limit?: { readonly perMinute: number };
  readonly reason?: string;
}

export interface PolicySettings {
  readonly default?: "allow" | "deny" | "ask";
  readonly rules?: readonly PolicyRule[];
  /** Set when the policy could not be read: every call is denied with this as the reason. */
  readonly unusable?: string;
}

export interface AuditSettings {
  /** The JSONL file (absolute; a relative path was resolved against the config file's folder). */
  readonly file: string;
  /** Log arguments and results in full (secrets masked) instead of their SHA-256 digests. */
  readonly full?: boolean;
  /** Rotate when the file would grow past this many bytes (default 10 MB). */
  readonly maxBytes?: number;
  /** Set when the setting could not be read: every call is denied with this as the reason. */
  readonly unusable?: string;
}

const argumentMatch = z
  .object({
    path: z.string().regex(/^\$/).describe('JSON path into the arguments, such as "$.path" or "$.files[*]"'),
    glob: z.string().optional().describe("Matches the whole value; * is any run of characters"),
    regex: z.string().optional().describe("RE2 regular expression, searched in the value"),
  })
  .strict();

const rule = z
  .object({
    server: z.string().optional().describe("Server name glob"),
    tool: z.string().optional().describe("Tool name glob (the server's own name)"),
    annotations: z.record(z.string(), z.boolean()).optional().describe("Hints the tool must have"),
    args: z.array(argumentMatch).optional(),
    caller: z.string().optional().describe("Gateway client identity glob"),
    action: z.enum(["allow", "deny", "ask", "limit"]),
    limit: z.object({ perMinute: z.number().int().positive() }).strict().optional(),
    reason: z.string().optional().describe("Told to the model when the rule refuses a call"),
  })
  .strict();

export const policySchema = () =>
  z
    .object({
      default: z.enum(["allow", "deny", "ask"]).optional().describe("When no rule matches (default allow)"),
      rules: z.array(rule).optional().describe("Evaluated in order; the first match decides"),
    })
    .strict();

export const auditSchema = () =>
  z
    .object({
      file: z.string().describe("The JSONL audit file (relative to the config file)"),
      full: z.boolean().optional().describe("Log arguments and results in full (secrets masked)"),
      maxBytes: z.number().int().positive().optional().describe("Rotate past this size (default 10 MB)"),
    })
    .strict();

/** Why a rule list cannot be enforced as written, or undefined when it can. */
function ruleProblem(rules: readonly PolicyRule[]): string | undefined {
  for (const [index, item] of rules.entries()) {
    const at = `rule #${index + 1}`;
    if (item.action === "limit" && item.limit === undefined)
      return `${at} has action "limit" but no limit: { perMinute }`;
    if (item.action !== "limit" && item.limit !== undefined)
      return `${at} has a limit but its action is "${item.action}"`;
    for (const match of item.args ?? []) {
      if (match.glob !== undefined && match.regex !== undefined)
        return `${at}: an argument match has both glob and regex`;
      if (match.regex === undefined) continue;
      try {
        re2js().compile(match.regex);
      } catch (error) {
        return `${at}: regex ${JSON.stringify(match.regex)} is not valid RE2 (${(error as Error).message})`;
      }
    }
  }
  return undefined;
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}

/** A raw `policy` value; a bad one is an unusable policy (deny all), with the problem as its reason. */
export function readPolicySetting(value: unknown): PolicySettings {
  const parsed = policySchema().safeParse(value);
  if (!parsed.success) return { default: "deny", rules: [], unusable: issuesOf(parsed.error) };
  const rules = (parsed.data.rules ?? []) as PolicyRule[];
  const problem = ruleProblem(rules);
  if (problem !== undefined) return { default: "deny", rules: [], unusable: problem };
  return { default: parsed.data.default ?? "allow", rules };
}

/** A raw `audit` value; `file` is resolved against `dir` (the config file's folder). */
export function readAuditSetting(value: unknown, dir: string | undefined): AuditSettings {
  const parsed = auditSchema().safeParse(value);
  if (!parsed.success) return { file: "", unusable: issuesOf(parsed.error) };
  const { file, full, maxBytes } = parsed.data;
  const path = isAbsolute(file) || dir === undefined ? resolve(file) : resolve(dir, file);
  return { file: path, full: full ?? false, maxBytes: maxBytes ?? AUDIT_LOG.maxBytes };
}
