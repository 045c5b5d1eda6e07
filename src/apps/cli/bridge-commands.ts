import type { Bridge, BridgeOptions, PinDriftEvent } from "../../bridge/api.js";
import type { ServerStatus } from "../../connection/server-status.js";
import { type Logger, SERVER_START_FAILED } from "../../util/logger.js";
import type { Envelope } from "../daemon/protocol.js";
import { renderAnswer } from "./command-answers.js";
import type { CommandContext } from "./command-context.js";
import { askedBy, type DaemonCommand } from "./command-requests.js";
import { type CliConfigSource, cliConfigSource } from "./config-choice.js";
import { registerSpinner, stopSpinner } from "./progress-pause.js";
import { rememberedInputs } from "./remembered-inputs.js";
import { progressText, startProgress } from "./start-progress.js";
import { canAsk, clean, confirm, stopAsking } from "./terminal-ask.js";
import { terminalElicitation } from "./terminal-elicitation.js";
import { urlElicitation } from "./url-elicitation.js";

/**
 * The bridge of a command that starts servers: its options (made here once), its start with live
 * progress on a terminal, and the in-process answer of the commands a daemon can also answer.
 */

/**
 * What every command's bridge gets, built here only: the chosen config (`source`, else chosen now with
 * consent for project-level servers), the terminal's elicitation prompt, and a start that does not
 * wait (commands show progress or go on).
 */
export async function cliBridgeOptions(
  context: CommandContext,
  source?: CliConfigSource,
): Promise<BridgeOptions> {
  const { path, admitProjectServer, servers, extraServers } =
    source ?? (await cliConfigSource(context, { consent: true }));
  // Let go of the terminal: the next reader (an elicitation prompt, chat's own) starts afresh.
  stopAsking(context.io);
  // Forms are asked field by field on a terminal; URL requests are printed (and offered to a browser
  // on a terminal). Without a terminal both are declined.
  const onElicitation = urlElicitation(
    context.io,
    terminalElicitation(context.io) ?? (() => ({ action: "decline" as const })),
  );
  // `--tag` (tools, status, serve): only the servers with one of these labels start.
  const tags = context.options.tag as string[] | undefined;
  return {
    ...(tags !== undefined && tags.length > 0 ? { tags } : {}),
    resolveInput: rememberedInputs(context.io),
    config: path,
    servers,
    extraServers,
    admitProjectServer,
    onElicitation,
    cwd: context.io.cwd,
    env: context.io.env,
    logger: context.logger,
    wait: false,
    enforceRequired: false,
    // A changed tool is asked about on a terminal and kept out elsewhere (docs/security.md).
    onDrift: "ask",
    confirmDrift: canAsk(context.io) ? (event) => confirmDrift(context, event) : undefined,
  };
}

/** Asks on the terminal whether to accept a server's changed tools (default no). */
async function confirmDrift(context: CommandContext, event: PinDriftEvent): Promise<boolean> {
  const server = clean(event.drift.server);
  stopSpinner(context.io.stderr);
  context.io.stderr.write(
    `Server "${server}" changed its tools since they were pinned:\n${event.lines.map((l) => `  ${clean(l)}`).join("\n")}\n`,
  );
  return confirm(context.io, `Accept these changes for "${server}"? [y/N] `);
}

/** Starts the bridge, showing live progress on stderr when it is a terminal. */
export async function openBridge(
  context: CommandContext,
  extra: Partial<BridgeOptions> = {},
  how: { readonly cachedIsReady?: boolean } = {},
): Promise<Bridge> {
  return startWithProgress(context, { ...(await cliBridgeOptions(context)), ...extra }, how);
}

/**
 * Starts the bridge with options already made by `cliBridgeOptions`, showing live progress. With
 * `cachedIsReady`, a server whose tools came from the catalog cache counts as ready (for commands
 * that only list tools); every other one is waited for.
 */
export async function startWithProgress(
  context: CommandContext,
  options: BridgeOptions,
  how: { readonly cachedIsReady?: boolean } = {},
): Promise<Bridge> {
  // Loaded here rather than imported: help, usage errors and commands answered by a daemon never
  // need the bridge, and loading it (the SDK, zod) is most of the CLI's start-up time.
  const { startBridge } = await import("../../bridge/bridge.js");
  // Every command that starts servers here reports the failed ones in its answer (the status table,
  // a warning under the tools, the call's error): the library's own warning would say it twice.
  const bridge = await startBridge({
    ...options,
    logger: withoutStartFailures(options.logger ?? context.logger),
  });
  const abort = () => void bridge.close();
  context.io.signal?.addEventListener("abort", abort, { once: true });
  const stop = showProgress(context, bridge);
  try {
    await (how.cachedIsReady ? readyOrCached(bridge) : bridge.ready());
  } finally {
    stop();
  }
  return bridge;
}

function withoutStartFailures(logger: Logger): Logger {
  return {
    ...logger,
    warn: (message, fields) => {
      if (fields?.event !== SERVER_START_FAILED) logger.warn(message, fields);
    },
  };
}

/** Resolves once no server is still connecting, except those listed from the catalog cache. */
function readyOrCached(bridge: Bridge): Promise<void> {
  const waiting = () => bridge.servers().some((s) => s.state === "connecting" && s.catalog !== "cache");
  if (!waiting()) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      off();
      resolve();
    };
    // Each state change may be the last one awaited; ready() bounds the wait in any case.
    const off = bridge.on("serverStateChanged", () => {
      if (!waiting()) done();
    });
    void bridge.ready().then(done);
  });
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

function showProgress(context: CommandContext, bridge: Bridge): () => void {
  const { stderr } = context.io;
  if (!stderr.isTTY || context.global.quiet) return () => {};
  const style = context.errStyle;
  let frame = 0;
  const render = () => {
    const progress = startProgress(bridge.servers());
    const pending = progress.pending;
    const spinner = style.dim(FRAMES[frame++ % FRAMES.length] ?? "");
    stderr.write(
      `\r\u001b[2K${spinner} Starting servers: ${progressText(progress)}${pending.length ? style.dim(` (waiting for ${pending.slice(0, 3).join(", ")}${pending.length > 3 ? ", ..." : ""})`) : ""}`,
    );
  };
  const unsubscribe = bridge.on("serverStateChanged", (status: ServerStatus) => {
    if (status.state === "connected" || status.state === "failed") render();
  });
  const timer = setInterval(render, 80);
  render();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    unsubscribe();
    stderr.write("\r\u001b[2K");
  };
  // A question asked during the start (terminal-ask.ts) stops it first.
  const unregister = registerSpinner(stderr, stop);
  return () => {
    unregister();
    stop();
  };
}

/**
 * Answers a daemon-capable command in this process: starts the servers it needs (only `--server`'s
 * when given), builds the same document the daemon would, prints it, and closes the bridge.
 */
export async function answerInProcess<R extends { server?: string }>(
  context: CommandContext,
  command: DaemonCommand,
  document: (bridge: Bridge, request: R) => Envelope | Promise<Envelope>,
): Promise<number> {
  const asked = askedBy(command, context);
  const request = asked.body as unknown as R;
  const bridge = await openBridge(context, { only: request.server ? [request.server] : undefined });
  try {
    return renderAnswer(context, asked, await document(bridge, request));
  } finally {
    await bridge.close();
  }
}
