import * as z from "zod";
import { parseDuration } from "../util/duration.js";

/**
 * The `guardrails` setting: the built-in checks on what goes to a server (arguments) and what comes
 * back (results, tool descriptions, prompts), each with an action, per server and tool; and an external
 * check hook. Like `policy`, a setting that cannot be read is not dropped: it is kept as `unusable`
 * and every call is refused with that reason (fail closed), since a typo must not turn a check off.
 */

/** `allow`: recorded only; `mask`: the finding is masked (or, for instructions, marked); `block`; `ask` a person. */
export type GuardrailAction = "allow" | "mask" | "block" | "ask";

/** The built-in checks. */
export const GUARDRAIL_CHECKS = ["secrets", "hiddenText", "instructions"] as const;
export type GuardrailCheck = (typeof GUARDRAIL_CHECKS)[number];

export type GuardrailActions = Readonly<Partial<Record<GuardrailCheck, GuardrailAction>>>;

export interface GuardrailRule extends GuardrailActions {
  /** Server name glob (the config's names). */
  readonly server?: string;
  /** Tool (or prompt) name glob: the server's own name. */
  readonly tool?: string;
}

export type GuardrailPhase = "request" | "result";

export interface GuardrailHook {
  /** An HTTP(S) endpoint the request or result is POSTed to. */
  readonly url?: string;
  /** A local program and its arguments (never a shell): the JSON on stdin, the answer on stdout. */
  readonly command?: readonly string[];
  readonly timeoutMs: number;
  /** What an unreachable, failing, slow or unreadable hook means: `block` (default) or `allow`. */
  readonly onFailure: "block" | "allow";
  readonly phases: readonly GuardrailPhase[];
}

export interface GuardrailSettings {
  /** The actions where no rule sets one (secrets and hidden text masked, instructions flagged). */
  readonly defaults: Readonly<Record<GuardrailCheck, GuardrailAction>>;
  /** For each check, the first rule matching the server and tool that sets it wins. */
  readonly rules: readonly GuardrailRule[];
  readonly hook?: GuardrailHook;
  /** Set when the setting could not be read: every call is refused with this as the reason. */
  readonly unusable?: string;
}

export const GUARDRAIL_DEFAULTS: GuardrailSettings["defaults"] = {
  secrets: "mask",
  hiddenText: "mask",
  instructions: "allow",
};

const HOOK_TIMEOUT_MS = 5_000;

const action = () => z.enum(["allow", "mask", "block", "ask"]);
const actions = {
  secrets: action().optional().describe("Credentials in arguments and results (default mask)"),
  hiddenText: action()
    .optional()
    .describe("Invisible Unicode (tag characters, bidi overrides, zero-width runs) (default mask)"),
  instructions: action()
    .optional()
    .describe("Instruction-like text in results and descriptions (default allow: flagged, kept)"),
};

const duration = () => z.union([z.number().nonnegative(), z.string()]);

export const guardrailsSchema = () =>
  z
    .object({
      ...actions,
      rules: z
        .array(
          z
            .object({
              server: z.string().optional().describe("Server name glob"),
              tool: z.string().optional().describe("Tool or prompt name glob (the server's own name)"),
              ...actions,
            })
            .strict(),
        )
        .optional()
        .describe("Per server and tool; for each check the first matching rule that sets it wins"),
      hook: z
        .object({
          url: z.string().url().optional().describe("HTTP(S) endpoint the request or result is POSTed to"),
          command: z
            .array(z.string())
            .min(1)
            .optional()
            .describe("Program and arguments (no shell): JSON on stdin, answer on stdout"),
          timeout: duration().optional().describe('Seconds or "2s" (default 5s)'),
          onFailure: z.enum(["block", "allow"]).optional().describe("When the hook fails (default block)"),
          phases: z
            .array(z.enum(["request", "result"]))
            .optional()
            .describe('What the hook sees (default ["request", "result"])'),
        })
        .strict()
        .optional(),
    })
    .strict();

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}

const REFUSE_ALL: Omit<GuardrailSettings, "unusable"> = {
  defaults: { secrets: "block", hiddenText: "block", instructions: "block" },
  rules: [],
};

/** A raw `guardrails` value (`true`: the defaults); a bad one is unusable (every call refused). */
export function readGuardrailSetting(value: unknown): GuardrailSettings | undefined {
  if (value === false) return undefined;
  const parsed = guardrailsSchema().safeParse(value === true ? {} : value);
  if (!parsed.success) return { ...REFUSE_ALL, unusable: issuesOf(parsed.error) };
  const { rules, hook, ...own } = parsed.data;
  const defaults = { ...GUARDRAIL_DEFAULTS };
  for (const check of GUARDRAIL_CHECKS) if (own[check]) defaults[check] = own[check];
  if (!hook) return { defaults, rules: rules ?? [] };
  if ((hook.url === undefined) === (hook.command === undefined))
    return { ...REFUSE_ALL, unusable: "hook: give exactly one of url and command" };
  let timeoutMs = HOOK_TIMEOUT_MS;
  if (hook.timeout !== undefined) {
    try {
      timeoutMs = parseDuration(hook.timeout);
    } catch (error) {
      return { ...REFUSE_ALL, unusable: `hook.timeout: ${(error as Error).message}` };
    }
  }
  return {
    defaults,
    rules: rules ?? [],
    hook: {
      ...(hook.url === undefined ? {} : { url: hook.url }),
      ...(hook.command === undefined ? {} : { command: hook.command }),
      timeoutMs,
      onFailure: hook.onFailure ?? "block",
      phases: hook.phases ?? ["request", "result"],
    },
  };
}
