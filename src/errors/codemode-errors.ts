/**
 * Code mode: a program run in the sandbox went past a limit, did not compile, threw, or passed
 * something that is not JSON across the boundary. Each message is written for the model that wrote
 * the program: what stopped it and what to change.
 */
import {
  AbortError,
  CodeLimitError,
  type CodeLimitKind,
  ErrorCode,
  InvalidArgumentsError,
  McpBridgeError,
  ToolNotFoundError,
} from "./error-classes.js";

/** Longest piece of the program's own error text quoted back. */
const QUOTE = 2000;

const LIMIT_ADVICE: Record<CodeLimitKind, string> = {
  cpu: "Do less computation in the program (no endless loops; let tools filter data).",
  memory: "Keep less data in variables at once (process items one by one, print only what is needed).",
  output: "Print less: summarize, count or filter instead of printing whole results.",
  toolCalls: "Make fewer tool calls per program (batch the work, or run several programs).",
  wallTime: "Make the program finish sooner (fewer or faster tool calls), or split the task.",
};

const LIMIT_NAMES: Record<CodeLimitKind, string> = {
  cpu: "CPU time",
  memory: "memory",
  output: "output",
  toolCalls: "tool calls",
  wallTime: "time",
};

/** The program used more than its allowance of one resource; `amount` says the limit in words. */
export function codeLimitReached(fields: { limit: CodeLimitKind; amount: string }): CodeLimitError {
  const { limit, amount } = fields;
  return new CodeLimitError(
    `The program was stopped: it went past its ${LIMIT_NAMES[limit]} limit (${amount}). ${LIMIT_ADVICE[limit]}`,
    { limit },
  );
}

/** The program threw (its own error, or a failed tool call it did not catch), or did not parse. */
export function codeFailed(fields: { detail: string; syntax?: boolean; hint?: string }): McpBridgeError {
  const detail = fields.detail.slice(0, QUOTE);
  const what = fields.syntax ? "The program does not parse" : "The program threw";
  return new McpBridgeError(
    ErrorCode.CodeFailed,
    `${what}: ${detail}${fields.hint ? ` ${fields.hint}` : ""}`,
  );
}

/** The caller cancelled the execution (its AbortSignal); running tool calls were cancelled too. */
export function codeAborted(fields: { cause?: unknown } = {}): AbortError {
  return new AbortError(
    "The program was cancelled by its caller before it finished; its running tool calls were cancelled.",
    { cause: fields.cause },
  );
}

/** What the program passed to a tool is not a JSON object (a getter that throws, a cycle, a function). */
export function codeArgumentsNotJson(fields: {
  server: string;
  tool: string;
  problem: string;
}): InvalidArgumentsError {
  const { server, tool, problem } = fields;
  const message = problem.slice(0, 300);
  return new InvalidArgumentsError(
    `tools.${server}.${tool}(...) takes one plain JSON object of arguments: ${message}.`,
    { server, tool, issues: [{ path: "", message }] },
  );
}

/** A tool's answer to a program is larger than a program may receive, outside the text that is cut. */
export function codeResultTooLarge(fields: {
  server: string;
  tool: string;
  chars: number;
  limit: number;
}): McpBridgeError {
  const { server, tool, chars, limit } = fields;
  return new McpBridgeError(
    ErrorCode.ResultTooLarge,
    `The result of ${server}/${tool} is ${chars} characters of JSON, more than a program receives (${limit}). Ask the tool for less (a filter, a page, fewer fields).`,
    { server, tool },
  );
}

/** A tool the program named that the catalog does not have (or no longer has). */
export function codeUnknownTool(fields: { name: string }): ToolNotFoundError {
  return new ToolNotFoundError(
    `No tool "${fields.name.slice(0, 200)}" in the code-mode API. Use search_tools or describe_tools to find the exact names.`,
  );
}

/** The host's approval refused a tool the program called; the program sees this as the call's error. */
export function codeCallDeclined(fields: { server: string; tool: string }): AbortError {
  const { server, tool } = fields;
  return new AbortError(`The user declined to run ${server}/${tool}; do not retry it.`, { server, tool });
}

/** The TypeScript stripper is missing: the program has to be JavaScript. */
export const TYPESCRIPT_UNAVAILABLE_HINT =
  "(TypeScript annotations are removed only on Node.js 22.13+ or with the `typescript` package installed: write plain JavaScript.)";

/** The abort reason of a program's tool calls still running when it ended. */
export const sandboxFinished = () => new Error("finished");
