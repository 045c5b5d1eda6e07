import { createInterface, type Interface } from "node:readline";
import { defaultAuthDir } from "../../../auth/store.js";
import type { Bridge, ElicitationHandler } from "../../../bridge/api.js";
import type { RemoteServerDefinition } from "../../../config/model.js";
import type { ServerStatus } from "../../../connection/server-status.js";
import { errorText } from "../../../util/text-of.js";
import type { ModelProvider } from "../../agent/model-provider.js";
import { chooseProvider } from "../../agent/select-provider.js";
import { cliBridgeOptions } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { type AskLine, terminalElicitation } from "../terminal-elicitation.js";
import { urlElicitation } from "../url-elicitation.js";
import { chatNeedsInput } from "../usage-errors.js";
import { chatSampling, type SamplingPrompt } from "./chat-sampling.js";
import { ChatSession, type ChatSession as Session } from "./chat-session.js";
import { HISTORY_SIZE, historyFile, loadHistory, saveHistory } from "./history.js";
import { ChatView, counted, tokenCounts } from "./view.js";

/**
 * `mcp-bridge chat [--model M] [--provider openai|anthropic] [--base-url URL] [--system TEXT] [--yes]`
 * and `mcp-bridge chat -p "question"`: a conversation with a model that uses every configured
 * server. The prompt opens at once; servers come up in the background and their tools join the
 * conversation as they connect.
 */
/** `mcp-bridge chat`: loaded by its command spec (commands/chat-command.ts) only when it runs. */
export async function runChat(context: CommandContext): Promise<number> {
  const { io, options } = context;
  const str = (key: string) => (typeof options[key] === "string" ? (options[key] as string) : undefined);
  // An empty --base-url or --model is as good as none: the environment's is used.
  const provider = await chooseProvider(
    {
      provider: options.provider as "openai" | "anthropic" | undefined,
      baseUrl: str("base-url") || undefined,
      model: str("model") || undefined,
    },
    io.env,
  );
  const question = str("print");
  // Server questions (elicitation) go through the chat's own line reader once it exists; until then,
  // and in -p mode, nobody is at the prompt and they are declined.
  let askLine: AskLine | undefined;
  // Sampling requests of servers allowed to sample are shown in the chat and answered by its model.
  const sampling: SamplingPrompt = { yes: options.yes === true };
  // Loaded on use, not imported: every other command and `--help` skip the bridge.
  const { startBridge } = await import("../../../bridge/bridge.js");
  const started = await startBridge({
    ...(await cliBridgeOptions(context)),
    // A link to open is shown (and offered to the browser at the prompt) rather than asked as a form.
    onElicitation: (request) =>
      askLine
        ? urlElicitation(
            io,
            terminalElicitation(io, askLine) as ElicitationHandler,
            undefined,
            askLine,
          )(request)
        : urlElicitation(io, () => ({ action: "decline" }))(request),
    onSampling: chatSampling(provider, sampling),
  });
  // Code mode: the conversation sees the bridge through a view whose tools are the three meta-tools.
  const bridge =
    options["code-mode"] === true
      ? (await import("../../../codemode/code-mode-bridge.js")).codeModeBridge(started)
      : started;
  const closing = () => void bridge.close();
  io.signal?.addEventListener("abort", closing, { once: true });
  const view = new ChatView(
    {
      write: (text) => io.stdout.write(text),
      isTTY: io.stdout.isTTY === true || undefined,
      columns: (io.stdout as { columns?: number }).columns || undefined,
    },
    context.style,
  );
  try {
    if (question !== undefined) {
      sampling.view = new ChatView({ write: (text) => io.stderr.write(text) }, context.errStyle);
      return await printMode(context, bridge, provider, question);
    }
    sampling.view = view;
    return await interactive(context, bridge, view, provider, (ask) => {
      askLine = ask;
      sampling.ask = ask;
    });
  } finally {
    io.signal?.removeEventListener("abort", closing);
    await bridge.close();
  }
}

/** `-p`: one question, the answer on stdout (or, with --json, the whole transcript), then exit. */
async function printMode(
  context: CommandContext,
  bridge: Bridge,
  provider: ModelProvider,
  question: string,
): Promise<number> {
  // Non-interactive: every server gets its chance to come up before the question is asked.
  await bridge.ready();
  const json = context.global.json;
  // The answer goes to stdout; tool lines and notes to stderr, so `chat -p ... > file` keeps only the answer.
  const stderr = { write: (text: string) => context.io.stderr.write(text) };
  const printed = new ChatView({ write: (text) => context.io.stdout.write(text) }, context.style, {
    out: stderr,
    style: context.errStyle,
  });
  const session = new ChatSession({
    bridge,
    provider,
    view: json ? new ChatView({ write: () => {} }, context.style) : printed,
    style: context.style,
    yes: context.options.yes === true,
    system: typeof context.options.system === "string" ? context.options.system : undefined,
  });
  let failed: string | undefined;
  try {
    const turn = await session.agent.run(question, { signal: context.io.signal });
    if (!json) printed.endTurn();
    if (!json && context.global.verbose)
      context.io.stderr.write(context.errStyle.dim(`(tokens: ${tokenCounts(turn.usage)})\n`));
    if (json)
      writeJson(context.io, {
        text: turn.text,
        stopReason: turn.stopReason,
        usage: turn.usage,
        messages: session.agent.messages,
      });
    return turn.stopReason === "max_steps" ? 1 : 0;
  } catch (error) {
    failed = errorText(error);
    const code = (error as { code?: string }).code ?? "ERROR";
    if (json) writeJson(context.io, { error: { code, message: failed }, messages: session.agent.messages });
    else context.io.stderr.write(`error: ${terminalText(failed)}\n`);
    return 1;
  }
}

async function interactive(
  context: CommandContext,
  bridge: Bridge,
  view: ChatView,
  provider: ModelProvider,
  shareAsk: (ask: AskLine) => void,
): Promise<number> {
  const { io, style } = context;
  const input = io.stdin;
  if (!input) throw chatNeedsInput();
  const tty = Boolean(input.isTTY && io.stdout.isTTY);
  const historyAt = tty ? historyFile(io.env) : undefined;
  const rl: Interface = createInterface({
    input,
    output: io.stdout,
    terminal: tty,
    history: loadHistory(historyAt),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  rl.on("history", (history: string[]) => saveHistory(historyAt, history));
  let running: AbortController | undefined;
  let lastInterrupt = 0;
  // One question at a time: readline drops a question asked while another is pending, and a tool
  // approval, a server's sampling request and its elicitation can all arrive together.
  // A question whose signal aborts (a server withdrew its request) is taken back: no late answer.
  let asking: Promise<unknown> = Promise.resolve();
  const ask = (question: string, signal?: AbortSignal) => {
    const answer = asking.then(
      () =>
        new Promise<string | undefined>((done) => {
          if (signal?.aborted) return done(undefined);
          view.hold(true);
          const answered = (answer: string | undefined) => {
            view.hold(false);
            done(answer);
          };
          signal?.addEventListener("abort", () => answered(undefined), { once: true });
          rl.question(question, signal ? { signal } : {}, answered);
        }),
    );
    asking = answer.catch(() => {});
    return answer;
  };
  // A single key answers (y/n/a...): no Enter, and readline never sees a line, so the answer stays
  // out of the input history. Enter with a typed word answers too; Ctrl-C answers no.
  const askKey = (question: string, keys: string) => {
    const answer = asking.then(
      () =>
        new Promise<string | undefined>((done) => {
          const taken = new AbortController();
          const settle = (value: string | undefined) => {
            input.off("keypress", onKey);
            taken.abort();
            view.hold(false);
            done(value);
          };
          const onKey = (
            text: string | undefined,
            key: { ctrl?: boolean; meta?: boolean; name?: string },
          ) => {
            if (key?.ctrl && key.name === "c") return settle("n");
            const letter = text?.toLowerCase();
            if (key?.ctrl || key?.meta || !letter || letter.length !== 1 || !keys.includes(letter)) return;
            // readline has put the key into its line: empty the line, then show the answer.
            rl.write(null, { ctrl: true, name: "u" });
            io.stdout.write(`${letter}\n`);
            settle(letter);
          };
          input.on("keypress", onKey);
          view.hold(true);
          rl.question(question, { signal: taken.signal }, (line) => settle(line));
        }),
    );
    asking = answer.catch(() => {});
    return answer;
  };
  if (tty) shareAsk(ask);
  const login = async (server: RemoteServerDefinition, signal?: AbortSignal) => {
    const { loginToServer, openBrowser } = await import("../oauth-login.js");
    return loginToServer(server, {
      settings: bridge.config.settings,
      storageDir: defaultAuthDir(io.env),
      env: io.env,
      logger: context.logger,
      signal,
      present: (url) => {
        view.line(`Open this URL to log in:\n  ${terminalText(url.toString())}`);
        if (tty && !io.env.MCP_BRIDGE_NO_BROWSER) openBrowser(url);
      },
    });
  };
  const session: Session = new ChatSession({
    bridge,
    provider,
    view,
    style,
    login,
    yes: context.options.yes === true,
    ask: tty ? ask : undefined,
    askKey: tty ? askKey : undefined,
    system: typeof context.options.system === "string" ? context.options.system : undefined,
  });
  const announce = (status: ServerStatus) => {
    if (status.state !== "connected" && status.state !== "failed") return;
    // At the prompt, the note replaces the prompt line and the prompt (with what was typed) comes back below.
    const atPrompt = tty && !running;
    if (atPrompt) io.stdout.write("\r\u001b[2K");
    if (status.state === "connected")
      view.note(`${terminalText(status.name)}: connected, ${counted(status.toolCount, "tool")}`);
    else if (status.state === "failed") {
      view.line(
        style.red(`${terminalText(status.name)}: failed: ${terminalText(status.lastError?.message ?? "")}`),
      );
      // The start error does not say whether a login would help; a remote server may need one.
      if (status.transport !== "stdio") view.note(`(if it needs a login: /mcp auth ${status.name})`);
    }
    if (atPrompt) rl.prompt(true);
  };
  const unsubscribe = bridge.on("serverStateChanged", announce);
  view.note(
    `mcp-bridge chat with ${provider.model} (${provider.name}); /help for commands, Ctrl-D to leave.`,
  );
  rl.setPrompt(style.bold("> "));

  return await new Promise<number>((done) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      unsubscribe();
      running?.abort();
      rl.close();
      done(0);
    };
    io.signal?.addEventListener("abort", finish, { once: true });
    rl.on("SIGINT", () => {
      if (running) {
        running.abort();
        return;
      }
      // Ctrl-C at an empty prompt twice (within 2 s) leaves; once clears the line.
      const now = Date.now();
      if (now - lastInterrupt < 2000) return finish();
      lastInterrupt = now;
      rl.write(null, { ctrl: true, name: "u" });
      view.note("(Ctrl-C again or Ctrl-D to leave)");
      rl.prompt();
    });
    const queue: string[] = [];
    let busy = false;
    const next = async () => {
      if (busy) return;
      busy = true;
      while (queue.length > 0 && !finished) {
        const line = queue.shift() ?? "";
        running = new AbortController();
        const outcome = await session.handle(line, running.signal);
        running = undefined;
        if (outcome === "exit") return finish();
      }
      busy = false;
      if (!finished && tty) rl.prompt();
      // Piped input ends the chat once every line is answered.
      if (!tty && inputEnded && queue.length === 0) finish();
    };
    let inputEnded = false;
    // A line ending in a backslash, or ended with Alt-Enter, goes on on the next line.
    let continued: string[] = [];
    const goOn = (line: string) => {
      continued.push(line);
      rl.setPrompt(style.dim("… "));
      if (tty) rl.prompt();
    };
    if (tty) {
      // readline ignores Alt-Enter: the typed line is taken here, and a new one begins below it.
      input.on("keypress", (_text: string, key: { meta?: boolean; name?: string }) => {
        if (!key?.meta || (key.name !== "return" && key.name !== "enter") || running) return;
        const line = rl.line;
        rl.write(null, { ctrl: true, name: "u" });
        io.stdout.write(`${line}\n`);
        goOn(line);
      });
    }
    rl.on("line", (line) => {
      if (line.endsWith("\\")) {
        goOn(line.slice(0, -1));
        return;
      }
      queue.push([...continued, line].join("\n"));
      continued = [];
      rl.setPrompt(style.bold("> "));
      void next();
    });
    // Ctrl-D on a terminal leaves at once; piped input leaves after its last line is answered.
    rl.on("close", () => {
      inputEnded = true;
      if (tty || (!busy && queue.length === 0)) finish();
    });
    if (tty) rl.prompt();
  });
}
