import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { ElicitationHandler, ElicitationResponse } from "../../bridge/api.js";
import { plainText } from "../../util/plain-text.js";
import type { CliIO } from "./cli-io.js";
import { stopSpinner } from "./progress-pause.js";

/** How to open a URL in the default browser per platform: a program and its arguments, never a shell. */
export function browserCommand(platform: NodeJS.Platform, url: string): { command: string; args: string[] } {
  if (platform === "darwin") return { command: "open", args: [url] };
  // `start` is a cmd builtin; rundll32 opens a URL without one.
  if (platform === "win32") return { command: "rundll32", args: ["url.dll,FileProtocolHandler", url] };
  return { command: "xdg-open", args: [url] };
}

/** Only web links are offered to a browser: a server must not get a local file or program opened. */
export function isWebUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * URL-mode elicitation in the CLI: the URL is printed on stderr; on a terminal the person is offered to
 * open it in their browser (accept when they do, decline otherwise). Without a terminal: printed and
 * declined. Form requests go to `form`. A command that already reads the terminal (chat) passes its
 * own `ask`, so two readers never compete for the same keystrokes.
 */
export function urlElicitation(
  io: CliIO,
  form: ElicitationHandler,
  open: (url: string) => void = openInBrowser,
  ask: (question: string) => Promise<string | undefined> = (question) => askLine(io, question),
): ElicitationHandler {
  return async (request): Promise<ElicitationResponse> => {
    if (request.mode !== "url") return form(request);
    const url = request.url ?? "";
    const server = plainText(request.server, 100);
    stopSpinner(io.stderr);
    io.stderr.write(
      `\nServer "${server}" asks you to open a link: ${plainText(request.message, 500)}\n  ${plainText(url, 2000)}\n`,
    );
    if (!isWebUrl(url)) {
      io.stderr.write("  Not an http(s) link; declined.\n");
      return { action: "decline" };
    }
    if (!(io.stdin?.isTTY && io.stderr.isTTY)) return { action: "decline" };
    const answer = await ask("Open it in your browser? [y/N] ");
    if (answer === undefined) return { action: "cancel" };
    if (!/^\s*y(es)?\s*$/i.test(answer)) return { action: "decline" };
    open(url);
    return { action: "accept", content: {} };
  };
}

function askLine(io: CliIO, question: string): Promise<string | undefined> {
  const input = io.stdin;
  if (!input) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const reader = createInterface({ input, terminal: false });
    let done = false;
    const finish = (line: string | undefined) => {
      if (done) return;
      done = true;
      reader.close();
      resolve(line);
    };
    reader.once("line", finish);
    reader.once("close", () => finish(undefined));
    io.signal?.addEventListener("abort", () => finish(undefined), { once: true });
    io.stderr.write(question);
  });
}

function openInBrowser(url: string): void {
  const { command, args } = browserCommand(process.platform, url);
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", () => {});
  child.unref();
}
