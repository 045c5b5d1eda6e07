import { resolve } from "node:path";
import { stateDirWithStore, storeNeedsClusterSecret } from "../../../errors/gateway-errors.js";
import { fastPathEnabled } from "../../gateway/fast-path/fast-call.js";
import type { ServedGateway } from "../../gateway/index.js";
import { cliBridgeOptions } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import {
  ADMIN_TOKEN_ENV,
  type SERVE_FLAGS,
  serveDeclaration,
  TOKENS_ENV,
} from "../declarations/process-commands.js";
import { servingEnvironment } from "../nesting-guard.js";
import type { FlagValues } from "../parse-arguments.js";
import { checkPortFree } from "../port-check.js";
import { serveLogger } from "../serve-logger.js";
import {
  adminTokenEnvUnset,
  adminTokenIsClientToken,
  exactlyOneFlag,
  httpOnlyServeFlag,
  toolNamesWithoutTool,
} from "../usage-errors.js";

/**
 * Flags only the HTTP gateway reads: the stdio channel has one client, no HTTP body, no sessions, no
 * drain and no other replica, so with --stdio each would be silently ignored. Refused there instead.
 */
const HTTP_ONLY_FLAGS = [
  "auth",
  "max-body",
  "drain",
  "session-idle",
  "admin-token-env",
  "store",
  "state-dir",
  "replica-id",
  "advertise-url",
  "cluster-secret-file",
  "insecure-store",
] as const satisfies readonly (keyof typeof SERVE_FLAGS)[];

const untilAborted = (signal: AbortSignal | undefined) =>
  new Promise<void>((done) => {
    if (!signal) return;
    if (signal.aborted) done();
    signal.addEventListener("abort", () => done(), { once: true });
  });

async function runServe(context: CommandContext<FlagValues<typeof SERVE_FLAGS>>): Promise<number> {
  const { options, io } = context;
  // First: under a bridge, this serve is the bridge nested in itself (its servers get the marker).
  const servingEnv = servingEnvironment(io.env, "serve");
  const listen = await checkedListen(options);
  // Loaded once the command line is known to be good: every other command and `--help` skip it.
  const gateway = await import("../../gateway/index.js");
  // Read before anything starts: a key file others can read is refused at once.
  const stateKeysFile = options["state-keys"];
  const stateKeys =
    stateKeysFile === undefined ? undefined : gateway.readStateKeys(resolve(io.cwd, stateKeysFile));
  const { tokens, oauth, adminToken } = await credentials(context);
  const secretFile = options["cluster-secret-file"];
  const clusterSecret = secretFile
    ? await (await import("../../gateway/cluster/replica.js")).readClusterSecret(resolve(io.cwd, secretFile))
    : undefined;
  const logged = serveLogger(context.logger, context.global.verbose === true);
  // Not refused (one replica with a store is a valid start), but several would half work: say so.
  if (options.store && stateKeys === undefined)
    logged.logger.warn(
      "The cluster store is used without --state-keys: this replica seals the requestState of multi-round calls with a key of its own, so a 2026-07-28 client's retry reaching another replica is refused. Give every replica the same --state-keys file.",
    );
  const served = await gateway.serveGateway({
    bridge: { ...(await cliBridgeOptions(context)), env: servingEnv },
    listen: listen ?? "stdio",
    stateKeys,
    tokens,
    oauth,
    adminToken,
    adminTools: options["admin-tools"] === true,
    codeMode: options["code-mode"] === true,
    toolNames: options["tool-names"],
    // The same limits on both transports (the stdio channel's one client is limited as an HTTP client is).
    limits: {
      maxConcurrentCalls: options["max-calls"],
      maxQueuedCalls: options["max-queued"],
      callsPerMinute: options["calls-per-minute"],
    },
    maxBodyBytes: options["max-body"],
    drainTimeoutMs: options.drain,
    sessionIdleMs: options["session-idle"],
    metrics: options.metrics,
    onMetrics: (url) => io.stderr.write(`Prometheus metrics at ${url}\n`),
    store: options.store,
    stateDir: options["state-dir"] === undefined ? undefined : resolve(io.cwd, options["state-dir"]),
    replicaId: options["replica-id"],
    advertiseUrl: options["advertise-url"],
    clusterSecret,
    insecureStore: options["insecure-store"] === true,
    listWaitMs: options["list-wait"],
    llmResults: options["llm-results"] === true,
    logger: logged.logger,
    watch: logged.watch,
    fastPath: fastPathEnabled(io.env),
    onProblem: (message) => io.stderr.write(`mcp-bridge serve: ${message}\n`),
  });
  return untilStopped(context, served);
}

/** The client tokens (environment and --auth FILE), the file's OAuth settings, and the admin token. */
async function credentials(context: CommandContext<FlagValues<typeof SERVE_FLAGS>>) {
  const { options, io } = context;
  const [{ readAuthFile, tokensFromEnv }, { tokenMatcher }] = await Promise.all([
    import("../../gateway/identity/auth-file.js"),
    import("../../gateway/identity/static-tokens.js"),
  ]);
  const file = options.auth ? await readAuthFile(resolve(io.cwd, options.auth), io.env) : undefined;
  const tokens = [...tokensFromEnv(io.env[TOKENS_ENV]), ...(file?.tokens ?? [])];
  const adminTokenEnv = options["admin-token-env"];
  const adminToken = io.env[adminTokenEnv ?? ADMIN_TOKEN_ENV] || undefined;
  if (adminTokenEnv !== undefined && adminToken === undefined)
    throw adminTokenEnvUnset({ name: adminTokenEnv });
  // The admin token must not also open /mcp: a client token holder would get control of every server.
  if (adminToken && tokenMatcher(tokens)(adminToken)) throw adminTokenIsClientToken();
  return { tokens, oauth: file?.oauth, adminToken };
}

/** The address of --http, or undefined for --stdio, once the flags agree and the port is free. */
async function checkedListen(
  options: FlagValues<typeof SERVE_FLAGS>,
): Promise<{ host: string; port: number } | undefined> {
  if (Boolean(options.stdio) === (options.http !== undefined))
    throw exactlyOneFlag({ flags: ["--stdio", "--http [HOST:]PORT"] });
  const httpOnly = HTTP_ONLY_FLAGS.find((flag) => options[flag] !== undefined);
  if (options.stdio && httpOnly !== undefined) throw httpOnlyServeFlag({ flag: httpOnly });
  // Before anything starts: a store nobody can authenticate is refused now (see storeNeedsClusterSecret).
  if (options.store && !options["cluster-secret-file"] && !options["insecure-store"])
    throw storeNeedsClusterSecret();
  if (options.store && options["state-dir"]) throw stateDirWithStore();
  // Before anything starts: a taken port is found now, not after every upstream server started.
  if (options.http) await checkPortFree(options.http);
  const toolNames = options["tool-names"];
  if (toolNames !== undefined && !toolNames.includes("{tool}"))
    throw toolNamesWithoutTool({ format: toolNames });
  return options.http;
}

/**
 * Serves until a signal (SIGTERM: stop accepting, let in-flight calls finish, bounded) or, on stdio,
 * until the channel ends (stdin's end, stdout's failure); the upstream servers are then taken down.
 */
async function untilStopped(
  context: CommandContext<FlagValues<typeof SERVE_FLAGS>>,
  served: ServedGateway,
): Promise<number> {
  const { io } = context;
  try {
    if (served.url !== undefined) {
      io.stderr.write(`mcp-bridge gateway listening on ${served.url}\n`);
      if (context.global.json) io.stdout.write(`${JSON.stringify({ url: served.url })}\n`);
    }
    await Promise.race([untilAborted(io.signal), served.ended]);
  } finally {
    await served.drain();
  }
  return 0;
}

export const serveCommand = defineCommand({
  ...serveDeclaration,
  run: runServe,
});
