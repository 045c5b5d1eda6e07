import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { daemonDidNotStart, noConfigFileFor } from "../../../errors/cli-errors.js";
import { parseDuration } from "../../../util/duration.js";
import { daemonRequest, NoDaemon, PACKAGE_VERSION } from "../../daemon/client.js";
import { acquirePidLock, processAlive, releasePidLock } from "../../daemon/lock.js";
import { type DaemonPaths, daemonPaths, ensureRuntimeFolder } from "../../daemon/paths.js";
import type { DaemonInfo } from "../../daemon/protocol.js";
import { cliBridgeOptions } from "../bridge-commands.js";
import { renderStatus, type StatusRow } from "../command-answers.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { cliConfigSource } from "../config-choice.js";
import { configFileFor } from "../daemon-route.js";
import { spawnDaemon } from "../daemon-spawn.js";
import { DAEMON_DEFAULT_IDLE, daemonDeclaration } from "../declarations/process-commands.js";
import { servingEnvironment } from "../nesting-guard.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

/** How long `daemon start` waits for the daemon to answer (servers keep starting after that). */
const START_WAIT_MS = 30_000;
const STOP_WAIT_MS = 15_000;

/** --idle (milliseconds, parsed from its DURATION by the flag's declaration), else the default. */
function idleMs(context: CommandContext): number {
  return (context.options.idle as number | undefined) ?? parseDuration(DAEMON_DEFAULT_IDLE);
}

/** The config the daemon serves: the file the bridge commands would load here. */
function daemonConfig(context: CommandContext, chosen: string | undefined): { path: string; named: boolean } {
  const file = configFileFor(context.io, chosen);
  if (file) return { path: file.path, named: chosen !== undefined };
  throw noConfigFileFor({ purpose: "daemon" });
}

/** The daemon's paths, for `stop` and `status`: only in a folder that is safely ours (else it throws). */
function pathsOf(context: CommandContext): DaemonPaths {
  const paths = daemonPaths(
    daemonConfig(context, context.global.config).path,
    context.io.cwd,
    context.io.env,
  );
  ensureRuntimeFolder(context.io.env);
  return paths;
}

async function info(paths: DaemonPaths): Promise<(DaemonInfo & { servers: StatusRow[] }) | undefined> {
  try {
    return (await daemonRequest(paths.socket, "daemon", {})).document as DaemonInfo & {
      servers: StatusRow[];
    };
  } catch (error) {
    if (error instanceof NoDaemon) return undefined;
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function logTail(paths: DaemonPaths): string {
  try {
    return readFileSync(paths.log, "utf8").split("\n").slice(-12).join("\n").trim();
  } catch {
    return "";
  }
}

function printInfo(
  context: CommandContext,
  running: DaemonInfo & { servers: StatusRow[] },
  verb: string,
): void {
  if (context.global.json) {
    // `idleLimitMs`: how long the daemon waits without a request before it stops (not how long it has been idle).
    const { idleMs, ...rest } = running;
    writeJson(context.io, { running: true, ...rest, idleLimitMs: idleMs });
    return;
  }
  const minutes = (ms: number) =>
    ms >= 60_000 ? `${Math.round(ms / 60_000)}m` : `${Math.round(ms / 1000)}s`;
  context.io.stdout.write(
    `Daemon ${verb} (pid ${running.pid}) for ${terminalText(running.config)}\n` +
      `socket ${terminalText(running.socket)}, up ${minutes(running.uptimeMs)}, ${running.idleMs > 0 ? `stops after ${minutes(running.idleMs)} idle` : "no idle stop"}\n`,
  );
  if (running.version !== PACKAGE_VERSION)
    context.io.stdout.write(
      `It is mcp-bridge ${terminalText(running.version)} and this is ${PACKAGE_VERSION}, so commands run without it: restart it (daemon stop, daemon start).\n`,
    );
  if (verb === "running") context.io.stdout.write(`${renderStatus(context, running.servers)}\n`);
}

/** `daemon start`: consent in the foreground, then a detached `daemon run`; waits until it answers. */
async function start(context: CommandContext): Promise<number> {
  const idle = idleMs(context);
  // Only a file the commands find: a daemon for the bundled example would never be asked.
  const config = daemonConfig(context, context.global.config);
  // Project-level servers are approved here, on the terminal; the daemon has none to ask.
  await cliConfigSource(context, { consent: true });
  const paths = daemonPaths(config.path, context.io.cwd, context.io.env);
  ensureRuntimeFolder(context.io.env);
  const running = await info(paths);
  if (running) {
    printInfo(context, running, "already running");
    return 0;
  }
  const failed = spawnDaemon({
    paths,
    config: context.global.config,
    idleMs: idle,
    trustProject: context.global.trustProject === true,
    cwd: context.io.cwd,
    env: context.io.env,
  });
  const deadline = Date.now() + START_WAIT_MS;
  while (Date.now() < deadline) {
    const answer = await info(paths);
    if (answer) {
      printInfo(context, answer, "started");
      return 0;
    }
    if (failed()) break;
    await sleep(50);
  }
  throw daemonDidNotStart({ config: config.path, log: paths.log, tail: terminalText(logTail(paths)) });
}

async function stop(context: CommandContext): Promise<number> {
  const paths = pathsOf(context);
  const running = await info(paths);
  if (!running) {
    if (context.global.json) writeJson(context.io, { running: false, stopped: false, socket: paths.socket });
    else context.io.stdout.write(`No daemon is running for ${terminalText(paths.config)}.\n`);
    return 0;
  }
  await daemonRequest(paths.socket, "shutdown", {});
  const deadline = Date.now() + STOP_WAIT_MS;
  while (processAlive(running.pid) && Date.now() < deadline) await sleep(50);
  if (processAlive(running.pid)) process.kill(running.pid, "SIGKILL");
  if (context.global.json) writeJson(context.io, { running: false, stopped: true, pid: running.pid });
  else context.io.stdout.write(`Daemon stopped (pid ${running.pid}).\n`);
  return 0;
}

async function status(context: CommandContext): Promise<number> {
  const paths = pathsOf(context);
  const running = await info(paths);
  if (running) {
    printInfo(context, running, "running");
    return 0;
  }
  if (context.global.json)
    writeJson(context.io, { running: false, config: paths.config, socket: paths.socket });
  else context.io.stdout.write(`No daemon is running for ${terminalText(paths.config)}.\n`);
  return 1;
}

/** `daemon run`: the daemon itself, in the foreground (what `start` runs detached). */
async function run(context: CommandContext): Promise<number> {
  // First: under a bridge, this daemon is the bridge nested in itself (its servers get the marker).
  const env = servingEnvironment(context.io.env, "daemon run");
  const idle = idleMs(context);
  const options = await cliBridgeOptions(context);
  // `start` passes the file it chose as --config, unless the search order finds it here too.
  const config = daemonConfig(context, context.global.config);
  const paths = daemonPaths(config.path, context.io.cwd, context.io.env);
  ensureRuntimeFolder(context.io.env);
  const lock = acquirePidLock(paths.pidFile);
  if (!lock.acquired) {
    context.logger.info(`A daemon for ${config.path} is already running (pid ${lock.pid})`);
    return 0;
  }
  try {
    // We hold the lock, so a socket file left behind is a dead daemon's.
    if (existsSync(paths.socket)) unlinkSync(paths.socket);
    // Loaded here, not imported: `daemon start|stop|status` and every other command skip the bridge.
    const [
      { startBridge },
      { serveDaemon },
      { RequestForwarder, serveGatewayStdio },
      { codeModeBridge },
      { servedNamesView },
      { SERVED_TOOL_NAME_FORMAT },
    ] = await Promise.all([
      import("../../../bridge/bridge.js"),
      import("../../daemon/socket-server.js"),
      import("../../gateway/index.js"),
      // The view only: QuickJS itself loads when a program first runs.
      import("../../../codemode/code-mode-bridge.js"),
      import("../../gateway/faces/mcp/served-view.js"),
      import("../../gateway/faces/mcp/served-names.js"),
    ]);
    // Elicitation and sampling of a call made by an attached session go to that session; the rest
    // (CLI calls, questions no session can be tied to) get the daemon's own answers.
    const forwarder = new RequestForwarder({
      elicitation: options.onElicitation,
      sampling: options.onSampling,
    });
    const bridge = await startBridge({
      ...options,
      env,
      settings: { ...options.settings, autoReload: true },
      // Every host session shares this daemon's servers: none runs before it is used (docs/hosts.md).
      lazyWithCatalog: true,
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
    });
    const daemon = await serveDaemon({
      bridge,
      paths,
      idleMs: idle > 0 ? idle : Number.POSITIVE_INFINITY,
      logger: context.logger,
      version: PACKAGE_VERSION,
      occupy: (server) => forwarder.occupy(server),
      // Each `mcp-bridge attach` is served exactly as `serve --stdio` serves its host, over this one
      // bridge: with serve's tool names (the config's serveToolNameFormat, else <server>_<tool>), not
      // the CLI's names this bridge keeps; `attach --code-mode` gets the code-mode view of it.
      attach: (channel, mode) =>
        serveGatewayStdio(
          mode.codeMode
            ? codeModeBridge(bridge)
            : servedNamesView(bridge, bridge.config.settings.serveToolNameFormat ?? SERVED_TOOL_NAME_FORMAT),
          {
            stdin: channel,
            stdout: channel,
            forwarder,
            llmResults: mode.llmResults,
            onProblem: (message) => context.logger.warn(`Attached session: ${message}`),
          },
        ),
    });
    context.io.signal?.addEventListener("abort", () => void daemon.stop("signal"), { once: true });
    await daemon.stopped;
    return 0;
  } finally {
    releasePidLock(paths.pidFile);
  }
}

export const daemonCommand = defineCommand({
  ...daemonDeclaration,
  run: async (context) => {
    const sub = context.positionals[0];
    if (sub === "start") return start(context);
    if (sub === "stop") return stop(context);
    if (sub === "status") return status(context);
    return run(context);
  },
});
