import { createInterface, type Interface } from "node:readline";
import { defaultAuthDir } from "../../../auth/store.js";
import type { Bridge, ElicitationHandler } from "../../../bridge/api.js";
import { isRemote, type RemoteServerDefinition } from "../../../config/model.js";
import type { ServerStatus } from "../../../connection/server-status.js";
import { errorText } from "../../../util/text-of.js";
import type { ModelProvider } from "../../agent/model-provider.js";
import { chooseProvider } from "../../agent/select-provider.js";
import { cliBridgeOptions } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { type Style, writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { type AskLine, terminalElicitation } from "../terminal-elicitation.js";
import { urlElicitation } from "../url-elicitation.js";
import { chatNeedsInput } from "../usage-errors.js";
import { ChatLoop, ChatQuestions } from "./chat-input.js";
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
  const rl = openLineReader(input, io.stdout, tty ? historyFile(io.env) : undefined, tty);
  const questions = new ChatQuestions(rl, input, io.stdout, view);
  if (tty) shareAsk(questions.ask);
  const session: Session = new ChatSession({
    bridge,
    provider,
    view,
    style,
    login: chatLogin(context, bridge, view, tty),
    yes: context.options.yes === true,
    ask: tty ? questions.ask : undefined,
    askKey: tty ? questions.askKey : undefined,
    system: typeof context.options.system === "string" ? context.options.system : undefined,
  });
  const loop: ChatLoop = new ChatLoop({
    rl,
    input,
    out: io.stdout,
    view,
    style,
    tty,
    handle: (line, signal) => session.handle(line, signal),
    signal: io.signal,
    onFinish: () => unsubscribe(),
  });
  const announce = serverAnnouncer({
    bridge,
    view,
    style,
    rl,
    out: io.stdout,
    atPrompt: () => tty && !loop.running,
  });
  const unsubscribe = bridge.on("serverStateChanged", announce);
  view.note(
    `mcp-bridge chat with ${provider.model} (${provider.name}); /help for commands, Ctrl-D to leave.`,
  );
  rl.setPrompt(style.bold("> "));
  return await loop.run();
}

/** The chat's line reader, with the input history kept in `historyAt` (on a terminal). */
function openLineReader(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  historyAt: string | undefined,
  tty: boolean,
): Interface {
  const rl = createInterface({
    input,
    output,
    terminal: tty,
    history: loadHistory(historyAt),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  rl.on("history", (history: string[]) => saveHistory(historyAt, history));
  return rl;
}

/** `/mcp auth SERVER`: an OAuth login, its URL shown in the chat (and opened in a browser on a terminal). */
function chatLogin(context: CommandContext, bridge: Bridge, view: ChatView, tty: boolean) {
  const { io } = context;
  return async (server: RemoteServerDefinition, signal?: AbortSignal) => {
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
}

/** A note in the chat for each server that connected or failed. */
function serverAnnouncer(chat: {
  bridge: Bridge;
  view: ChatView;
  style: Style;
  rl: Interface;
  out: { write(text: string): unknown };
  /** Whether the prompt is showing (on a terminal, no turn running). */
  atPrompt: () => boolean;
}) {
  const { bridge, view, style, rl, out } = chat;
  return (status: ServerStatus) => {
    if (status.state !== "connected" && status.state !== "failed") return;
    // At the prompt, the note replaces the prompt line and the prompt (with what was typed) comes back below.
    const atPrompt = chat.atPrompt();
    if (atPrompt) out.write("\r\u001b[2K");
    if (status.state === "connected")
      view.note(`${terminalText(status.name)}: connected, ${counted(status.toolCount, "tool")}`);
    else if (status.state === "failed") {
      view.line(
        style.red(`${terminalText(status.name)}: failed: ${terminalText(status.lastError?.message ?? "")}`),
      );
      // The start error does not say whether a login would help; a remote server may need one.
      if (isRemote(status.transport)) view.note(`(if it needs a login: /mcp auth ${status.name})`);
    }
    if (atPrompt) rl.prompt(true);
  };
}
