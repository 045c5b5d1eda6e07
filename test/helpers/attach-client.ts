import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { CLI } from "./cli.js";

type Id = string | number;
interface Message {
  id?: Id;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/**
 * An MCP host's session through a real `mcp-bridge attach` process, speaking raw newline-delimited
 * JSON-RPC as a host in any language would: requests with bounded waits, the notifications it got, and
 * an answer for each request the server sends it (elicitation).
 */
export interface AttachSession extends AsyncDisposable {
  readonly child: ChildProcess;
  readonly notifications: Message[];
  /** Requests the daemon sent to this session (elicitation/create, sampling/createMessage). */
  readonly asked: Message[];
  stderr(): string;
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Message>;
  /** Sends a request and returns its id and a promise of its answer. */
  start(
    method: string,
    params?: Record<string, unknown>,
    timeoutMs?: number,
  ): { id: Id; answer: Promise<Message> };
  initialize(capabilities?: Record<string, unknown>): Promise<Message>;
  until(check: () => boolean, what: string, ms?: number): Promise<void>;
  close(): Promise<number | null>;
}

export function attachSession(
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    answer?: (request: Message) => Record<string, unknown> | undefined;
    /** Node's own arguments, before the CLI's (a module trace's preload). */
    nodeArgs?: readonly string[];
  },
): AttachSession {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, "attach", ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const waiting = new Map<Id, (message: Message) => void>();
  const notifications: Message[] = [];
  const asked: Message[] = [];
  let next = 1;
  const send = (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const message = JSON.parse(line) as Message;
    if (message.method !== undefined && message.id !== undefined) {
      asked.push(message);
      const result = options.answer?.(message);
      if (result) send({ jsonrpc: "2.0", id: message.id, result });
      else send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "not handled" } });
    } else if (message.method !== undefined) notifications.push(message);
    else if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const start = (method: string, params: Record<string, unknown> = {}, timeoutMs = 20_000) => {
    const id = next++;
    const answer = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${method} in ${timeoutMs} ms; stderr: ${stderr}`)),
        timeoutMs,
      );
      waiting.set(id, (message) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(message);
      });
    });
    send({ jsonrpc: "2.0", id, method, params });
    // A request a test never awaits (a call whose session it killed) fails quietly when unanswered;
    // a test that awaits the answer still gets the failure.
    answer.catch(() => undefined);
    return { id, answer };
  };
  const session: AttachSession = {
    child,
    notifications,
    asked,
    stderr: () => stderr,
    start,
    request: (method, params, timeoutMs) => start(method, params, timeoutMs).answer,
    async initialize(capabilities = {}) {
      const answer = await start("initialize", {
        protocolVersion: "2025-06-18",
        capabilities,
        clientInfo: { name: "attach-test", version: "1" },
      }).answer;
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return answer;
    },
    async until(check, what, ms = 20_000) {
      const deadline = Date.now() + ms;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) await session.close();
    },
  };
  return session;
}

/** The tool of `tools/list` whose name ends with `_<tool>` (the daemon's naming puts the server first). */
export async function toolNamed(session: AttachSession, tool: string, ms = 20_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const listed = await session.request("tools/list");
    const tools = (listed.result?.tools ?? []) as { name: string }[];
    const found = tools.find((t) => t.name.endsWith(`_${tool}`));
    if (found) return found.name;
    if (Date.now() > deadline) throw new Error(`no tool ${tool} listed: ${JSON.stringify(tools)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function textOf(message: { result?: Record<string, unknown> }): string {
  const content = (message.result?.content ?? []) as { type: string; text?: string }[];
  return content.map((block) => block.text ?? "").join("");
}
