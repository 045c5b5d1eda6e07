import { spawn } from "node:child_process";
import * as z from "zod";
import type { GuardrailHook, GuardrailPhase } from "../config/guardrail-settings.js";
import { guardrailHookProblem } from "../errors/index.js";
import { errorText } from "../util/text-of.js";

/**
 * The guardrails' external check: the request (arguments) or the result is sent as JSON to an HTTP
 * endpoint (POST) or a local program (on its stdin; started without a shell), which answers with one
 * JSON object: `{ "action": "allow" | "mask" | "block" | "rewrite", "value"?, "reason"? }`. `mask` and
 * `rewrite` replace the arguments or result with `value`. Anything else (no answer within the
 * timeout, a non-2xx status, an exit code other than 0, an answer that is not this shape) is a
 * failure, which the caller turns into the hook's declared failure mode (block by default).
 */

export interface HookQuestion {
  readonly phase: GuardrailPhase;
  readonly server: string;
  readonly tool: string;
  readonly caller: string;
  readonly arguments: Record<string, unknown>;
  /** With phase `result`: the result as the server sent it (after the built-in checks). */
  readonly result?: unknown;
}

const answerSchema = z.object({
  action: z.enum(["allow", "mask", "block", "rewrite"]),
  value: z.unknown().optional(),
  reason: z.string().optional(),
});
export type HookAnswer = z.infer<typeof answerSchema>;

/** A hook's answer may not be larger than this (a result it rewrites included). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The hook's answer; throws an Error saying why the hook failed. */
export async function askHook(
  hook: GuardrailHook,
  question: HookQuestion,
  env: Readonly<Record<string, string | undefined>>,
): Promise<HookAnswer> {
  const body = JSON.stringify(question);
  const text = hook.url ? await post(hook.url, body, hook.timeoutMs) : await run(hook, body, env);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(guardrailHookProblem.notJson());
  }
  const answer = answerSchema.safeParse(parsed);
  if (!answer.success) throw new Error(guardrailHookProblem.badShape());
  if ((answer.data.action === "mask" || answer.data.action === "rewrite") && answer.data.value === undefined)
    throw new Error(guardrailHookProblem.noValue(answer.data.action));
  return answer.data;
}

async function post(url: string, body: string, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    throw new Error(name === "TimeoutError" ? guardrailHookProblem.timeout(timeoutMs) : errorText(error));
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(guardrailHookProblem.status(response.status));
  }
  const length = Number(response.headers.get("content-length") ?? 0);
  if (length > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new Error(guardrailHookProblem.tooLarge());
  }
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES) throw new Error(guardrailHookProblem.tooLarge());
  return text;
}

/** The program's stdout once it exits with 0; its stdin gets the question. Never a shell. */
function run(
  hook: GuardrailHook,
  body: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const [program, ...args] = hook.command as readonly string[];
  return new Promise((resolve, reject) => {
    const child = spawn(program as string, args, { shell: false, stdio: ["pipe", "pipe", "ignore"], env });
    const chunks: Buffer[] = [];
    let size = 0;
    let failure: string | undefined;
    const timer = setTimeout(() => {
      failure = guardrailHookProblem.timeout(hook.timeoutMs);
      child.kill("SIGKILL");
    }, hook.timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        failure = guardrailHookProblem.tooLarge();
        child.kill("SIGKILL");
      } else chunks.push(chunk);
    });
    child.on("error", (error) => {
      failure ??= guardrailHookProblem.notStarted(errorText(error));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (failure) reject(new Error(failure));
      else if (code !== 0) reject(new Error(guardrailHookProblem.exitCode(code)));
      else resolve(Buffer.concat(chunks).toString("utf8"));
    });
    // A program that exits without reading its input must not fail the write loudly.
    child.stdin.on("error", () => undefined);
    child.stdin.end(body);
  });
}
