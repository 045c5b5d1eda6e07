import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Bridge, BridgeOptions } from "../../bridge/types.js";
import {
  configSearchPaths,
  hostConfigsFound,
  type LoadConfigOptions,
  loadConfig,
} from "../../config/load.js";
import type { AdmitProjectServer, ResolvedConfig } from "../../config/model.js";
import type { ServerStatus } from "../../connection/status.js";
import { type Logger, SERVER_START_FAILED } from "../../util/logger.js";
import type { Envelope } from "../daemon/protocol.js";
import { adHocServers } from "./ad-hoc.js";
import { renderAnswer } from "./command-answers.js";
import type { CommandContext } from "./command-context.js";
import { askedBy, type DaemonCommand } from "./command-requests.js";
import { projectConsent } from "./commands/trust-command.js";
import { surprisingConfig } from "./config-notice.js";
import { rememberedInputs } from "./remembered-inputs.js";
import { progressText, startProgress } from "./start-progress.js";
import { terminalText } from "./terminal.js";
import { stopAsking } from "./terminal-ask.js";
import { terminalElicitation } from "./terminal-elicitation.js";
import { urlElicitation } from "./url-elicitation.js";

export { type AnyOptions, type CommandContext, createContext } from "./command-context.js";

/** The example config shipped with the package (examples/mcp.json beside dist/). */
export function bundledExampleConfig(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../../../../examples/mcp.json");
}

/**
 * The config to use: --config, else the search order (naming on stderr a file the user would not
 * expect, see `surprisingConfig`, or any with --verbose),
 * else the bundled example, unless another host's config exists: then no servers, and the files found.
 */
export function chooseConfig(context: CommandContext): string | undefined {
  if (context.global.config) return context.global.config;
  const where = { cwd: context.io.cwd, env: context.io.env };
  const candidates = configSearchPaths(where);
  const used = candidates.find((candidate) => candidate.used);
  const say = (text: string) => {
    if (!context.global.quiet) context.io.stderr.write(`${text}\n`);
  };
  if (used) {
    if (context.global.verbose || surprisingConfig(used, context.io))
      say(`Using config ${terminalText(used.path)}`);
    return undefined;
  }
  const hosts = hostConfigsFound(where);
  if (hosts.length > 0) {
    const list = hosts.map((host) => `${terminalText(host.file)} (${host.source})`).join(", ");
    const sources = [...new Set(hosts.map((host) => `"${host.source}"`))].join(", ");
    say(
      `No mcp-bridge config found, so no servers are started (the bundled examples are not used when other hosts' configs exist). Found: ${list}. Use one with --config FILE, or put { "settings": { "imports": [${sources}] } } in ./mcp.json.`,
    );
    return undefined;
  }
  const userConfig = candidates.find((c) => c.origin === "user");
  say(
    `No config found; using the bundled example servers. Put your own in ./mcp.json or ${userConfig?.path ?? "~/.config/mcp-bridge/mcp.json"} (see \`mcp-bridge config paths\`).`,
  );
  return bundledExampleConfig();
}

/** Where the CLI's config comes from, and which project-level servers may start. */
export interface CliConfigSource {
  /** The file (--config, or the bundled example); undefined: the loader's search order. */
  readonly path?: string;
  /** `--stdio`/`--http` servers without --config: the only servers (no file is read). */
  readonly servers?: Record<string, Record<string, unknown>>;
  /** `--stdio`/`--http` servers besides --config's. */
  readonly extraServers?: Record<string, Record<string, unknown>>;
  readonly admitProjectServer?: AdmitProjectServer;
}

/**
 * The one way the CLI picks its config: --config, else the search order, else the bundled example
 * (see `chooseConfig`), with consent for project-level servers when `consent` is set (anything that
 * starts or contacts a server needs it; showing the config does not).
 */
export async function cliConfigSource(
  context: CommandContext,
  { consent }: { consent: boolean },
): Promise<CliConfigSource> {
  // Ad-hoc servers are repeatable flags (arrays); `serve` has its own --stdio and --http (a switch
  // and an address), which are not servers.
  const list = (value: unknown) => (Array.isArray(value) ? (value as string[]) : undefined);
  const stdio = list(context.options.stdio);
  // `--http-url` is mcporter's spelling of --http: both lists, in that order.
  const httpUrls = [...(list(context.options.http) ?? []), ...(list(context.options["http-url"]) ?? [])];
  const http = httpUrls.length > 0 ? httpUrls : undefined;
  const name = list(context.options.name);
  const adHoc = adHocServers({
    ...(stdio ? { stdio } : {}),
    ...(http ? { http } : {}),
    ...(name ? { name } : {}),
  });
  if (adHoc && !context.global.config) return { servers: adHoc };
  const path = chooseConfig(context);
  const admitProjectServer = consent ? await projectConsent(context, path) : undefined;
  return {
    ...(path === undefined ? {} : { path }),
    ...(admitProjectServer ? { admitProjectServer } : {}),
    ...(adHoc ? { extraServers: adHoc } : {}),
  };
}

/** The options for `loadConfig` that match a source. */
export function loadOptionsFor(context: CommandContext, source: CliConfigSource): LoadConfigOptions {
  return {
    ...(source.path === undefined ? {} : { path: source.path }),
    ...(source.servers ? { servers: source.servers } : {}),
    ...(source.extraServers ? { extraServers: source.extraServers } : {}),
    cwd: context.io.cwd,
    env: context.io.env,
    ...(source.admitProjectServer ? { admitProjectServer: source.admitProjectServer } : {}),
  };
}

/** Loads the config the way every command sees it (`cliConfigSource`). */
export async function loadCliConfig(
  context: CommandContext,
  { consent }: { consent: boolean },
): Promise<ResolvedConfig & { readonly source: CliConfigSource }> {
  const source = await cliConfigSource(context, { consent });
  return { ...(await loadConfig(loadOptionsFor(context, source))), source };
}

/**
 * What every command's bridge gets: the chosen config, consent for project-level servers, the
 * terminal's elicitation prompt, and a start that does not wait (commands show progress or go on).
 */
export async function cliBridgeOptions(context: CommandContext): Promise<BridgeOptions> {
  const {
    path: config,
    admitProjectServer,
    servers,
    extraServers,
  } = await cliConfigSource(context, {
    consent: true,
  });
  // Let go of the terminal: the next reader (an elicitation prompt, chat's own) starts afresh.
  stopAsking(context.io);
  // Forms are asked field by field on a terminal; URL requests are printed (and offered to a browser
  // on a terminal). Without a terminal both are declined.
  const onElicitation = urlElicitation(
    context.io,
    terminalElicitation(context.io) ?? (() => ({ action: "decline" as const })),
  );
  return {
    resolveInput: rememberedInputs(context.io),
    ...(config === undefined ? {} : { config }),
    ...(servers ? { servers } : {}),
    ...(extraServers ? { extraServers } : {}),
    ...(admitProjectServer ? { admitProjectServer } : {}),
    onElicitation,
    cwd: context.io.cwd,
    env: context.io.env,
    logger: context.logger,
    wait: false,
    enforceRequired: false,
  };
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
  return () => {
    clearInterval(timer);
    unsubscribe();
    stderr.write("\r\u001b[2K");
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
  const bridge = await openBridge(context, request.server ? { only: [request.server] } : {});
  try {
    return renderAnswer(context, asked, await document(bridge, request));
  } finally {
    await bridge.close();
  }
}
