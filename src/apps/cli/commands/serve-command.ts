import { resolve } from "node:path";
import type { Bridge, BridgeOptions } from "../../../bridge/api.js";
import { fastPathEnabled } from "../../gateway/fast-path/fast-call.js";
import { servedNameSettings } from "../../gateway/served-names.js";
import { cliBridgeOptions } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { servingEnvironment } from "../nesting-guard.js";
import type { Flags, FlagValues } from "../parse-arguments.js";
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
 * The config's `serveToolNameFormat`, read before the bridge starts (the bridge names its tools as it
 * starts). A config that cannot be read is left for the bridge's start to report.
 */
async function configuredServeNames(options: BridgeOptions): Promise<string | undefined> {
  const { loadConfig } = await import("../../../config/load.js");
  const loaded = await loadConfig({
    path: options.config,
    servers: options.servers,
    extraServers: options.extraServers,
    cwd: options.cwd,
    env: options.env,
    // Only the settings are wanted: no project server is admitted (nor its values expanded) here.
    admitProjectServer: () => false,
  }).catch(() => undefined);
  return loaded?.settings.serveToolNameFormat;
}

/** The environment variable holding static bearer tokens (comma-separated) for `serve --http`. */
export const TOKENS_ENV = "MCP_BRIDGE_GATEWAY_TOKENS";

/** The environment variable holding the admin token of `serve --http`, unless --admin-token-env names another. */
export const ADMIN_TOKEN_ENV = "MCP_BRIDGE_GATEWAY_ADMIN_TOKEN";

const SERVE_FLAGS = {
  stdio: { type: "boolean", description: "serve MCP on stdin/stdout" },
  http: {
    type: "address",
    value: "[HOST:]PORT",
    description: "serve Streamable HTTP at /mcp (host 127.0.0.1 unless given)",
  },
  auth: {
    type: "path",
    value: "FILE",
    description: "JSON file of bearer tokens, OAuth (JWT) settings and profiles",
  },
  "state-keys": {
    type: "path",
    value: "FILE",
    description: "keys (KID:BASE64, mode 0600) sealing requestState, shared by every replica",
  },
  "max-body": {
    type: "int",
    value: "BYTES",
    description: "largest request body (default 4194304; 413 above)",
  },
  "max-calls": {
    type: "int",
    value: "N",
    description: "tool calls one client may run at once (default 16); more wait their turn",
  },
  "max-queued": {
    type: "int",
    min: 0,
    value: "N",
    description:
      "tool calls of one client that may wait for a running one to end (default 64; refused above)",
  },
  "calls-per-minute": {
    type: "int",
    value: "N",
    description: "tool calls one client may start per minute",
  },
  drain: {
    type: "duration",
    value: "DURATION",
    description: "on SIGTERM, how long in-flight calls may finish (default 30s)",
  },
  "session-idle": {
    type: "duration",
    value: "DURATION",
    description: "close a 2025-11-25 session after this long without a request (default 30m; 0 never)",
  },
  "list-wait": {
    type: "duration",
    value: "DURATION",
    description:
      "how long a client's first tools/list (and a REST listing) waits for servers still starting without a cached list (default 5s; 0 answers at once)",
  },
  "tool-names": {
    type: "string",
    value: "FORMAT",
    description: 'served tool names; {server} and {tool} are replaced (default "{server}_{tool}")',
  },
  "admin-tools": {
    type: "boolean",
    description:
      "also serve the tools mcp_bridge_admin_status, _reload and _restart (clients without a profile, or with admin: true)",
  },
  "admin-token-env": {
    type: "string",
    value: "NAME",
    description: `environment variable holding the bearer token of GET /status, POST /reload, POST /restart/SERVER (default ${ADMIN_TOKEN_ENV}; without one these routes are 404)`,
  },
  "code-mode": {
    type: "boolean",
    description:
      "serve only three tools, search_tools, describe_tools and execute_code: clients write a program that calls the servers' tools in a sandbox (see docs/code-mode.md)",
  },
  metrics: {
    type: "address",
    value: "[HOST:]PORT",
    description:
      "serve Prometheus metrics at /metrics (host 127.0.0.1 unless given; needs the OpenTelemetry SDK packages)",
  },
  store: {
    type: "string",
    value: "URL",
    description:
      "share per-client budgets and 2025-11-25 sessions with the other replicas through Redis (redis://HOST:PORT; see docs/deploy.md)",
  },
  "replica-id": {
    type: "string",
    value: "ID",
    description: "this replica's id in the cluster store (default a random one per start)",
  },
  "advertise-url": {
    type: "string",
    value: "URL",
    description: "the /mcp URL other replicas reach this one at (default the URL it listens on)",
  },
  "cluster-secret-file": {
    type: "path",
    value: "FILE",
    description:
      "private file (chmod 600, 32+ bytes) shared by the replicas: signs the requests they forward to each other",
  },
} as const satisfies Flags;

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
  "replica-id",
  "advertise-url",
  "cluster-secret-file",
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
  if (Boolean(options.stdio) === (options.http !== undefined))
    throw exactlyOneFlag({ flags: ["--stdio", "--http [HOST:]PORT"] });
  const httpOnly = HTTP_ONLY_FLAGS.find((flag) => options[flag] !== undefined);
  if (options.stdio && httpOnly !== undefined) throw httpOnlyServeFlag({ flag: httpOnly });
  const listen = options.http;
  // Before anything starts: a taken port is found now, not after every upstream server started.
  if (listen) await checkPortFree(listen);
  const toolNames = options["tool-names"];
  if (toolNames !== undefined && !toolNames.includes("{tool}"))
    throw toolNamesWithoutTool({ format: toolNames });
  // Loaded once the command line is known to be good: every other command and `--help` skip them.
  const [{ startBridge }, { readAuthFile, tokensFromEnv }, { tokenMatcher }, gateway, { gatewayTelemetry }] =
    await Promise.all([
      import("../../../bridge/bridge.js"),
      import("../../gateway/auth-file.js"),
      import("../../gateway/static-tokens.js"),
      import("../../gateway/index.js"),
      import("../../gateway/telemetry-setup.js"),
    ]);
  const { RequestForwarder, readStateKeys, serveGatewayStdio, startGateway } = gateway;
  // Read before anything starts: a key file others can read is refused at once.
  const stateKeysFile = options["state-keys"];
  const stateKeys = stateKeysFile === undefined ? undefined : readStateKeys(resolve(io.cwd, stateKeysFile));
  const file = options.auth ? await readAuthFile(resolve(io.cwd, options.auth), io.env) : undefined;
  const tokens = [...tokensFromEnv(io.env[TOKENS_ENV]), ...(file?.tokens ?? [])];
  const adminTokenEnv = options["admin-token-env"];
  const adminToken = io.env[adminTokenEnv ?? ADMIN_TOKEN_ENV] || undefined;
  if (adminTokenEnv !== undefined && adminToken === undefined)
    throw adminTokenEnvUnset({ name: adminTokenEnv });
  // The admin token must not also open /mcp: a client token holder would get control of every server.
  if (adminToken && tokenMatcher(tokens)(adminToken)) throw adminTokenIsClientToken();
  const maxBodyBytes = options["max-body"];
  // The same limits on both transports (the stdio channel's one client is limited as an HTTP client is).
  const limits = {
    maxConcurrentCalls: options["max-calls"],
    maxQueuedCalls: options["max-queued"],
    callsPerMinute: options["calls-per-minute"],
  };
  const drainTimeoutMs = options.drain;
  const secretFile = options["cluster-secret-file"];
  const clusterSecret = secretFile
    ? await (await import("../../gateway/cluster/replica.js")).readClusterSecret(resolve(io.cwd, secretFile))
    : undefined;
  const sessionIdleMs = options["session-idle"];
  // Spans and histograms of the gateway and of its bridge: to the process's global OpenTelemetry
  // providers, or with --metrics to a Prometheus endpoint of our own.
  const observed = await gatewayTelemetry(options.metrics);
  const telemetry = observed.telemetry;
  if (observed.metricsUrl) io.stderr.write(`Prometheus metrics at ${observed.metricsUrl}\n`);
  // Not openBridge: that closes the bridge as soon as SIGTERM arrives, and a drain needs the upstream
  // servers until the in-flight calls are done.
  // Upstream elicitation and sampling go to the downstream client whose call caused them; the
  // gateway's own terminal is not asked (under --stdio it is the MCP channel itself).
  const forwarder = new RequestForwarder({ stateKeys });
  const logged = serveLogger(context.logger, context.global.verbose === true);
  // Not refused (one replica with a store is a valid start), but several would half work: say so.
  if (options.store && stateKeys === undefined)
    logged.logger.warn(
      "The cluster store is used without --state-keys: this replica seals the requestState of multi-round calls with a key of its own, so a 2026-07-28 client's retry reaching another replica is refused. Give every replica the same --state-keys file.",
    );
  const bridgeOptions = await cliBridgeOptions(context);
  // With a cluster store, a replica starts warm: the tool lists its peers saw (bridge/shared-tool-lists.ts).
  const warmCatalog = options.store
    ? await (await import("../../gateway/cluster/redis-catalog.js")).connectRedisCatalog(
        options.store,
        clusterSecret,
      )
    : undefined;
  const bridge = await startBridge({
    ...bridgeOptions,
    env: servingEnv,
    sharedCatalog: warmCatalog,
    settings: servedNameSettings(toolNames, await configuredServeNames(bridgeOptions)),
    logger: logged.logger,
    onElicitation: forwarder.elicitation,
    onSampling: forwarder.sampling,
    telemetry: observed.setting,
    // Nobody can be asked: a changed tool stays out until `mcp-bridge pins accept` (docs/security.md).
    onDrift: "block",
    confirmDrift: undefined,
  }).catch(async (error: unknown) => {
    warmCatalog?.close();
    await observed.close();
    throw error;
  });
  const unwatch = logged.watch(bridge);
  // Not awaiting bridge.ready(): the gateway answers at once, its first tools/list after at most
  // --list-wait for the servers still starting (those the catalog cache lists at once), sends list_changed
  // as the others come up or fail, and a call waits for its own server. A host whose start timeout is
  // shorter than a slow server's keeps the rest.
  const adminTools = options["admin-tools"] === true || bridge.config.settings.gatewayAdminTools === true;
  // Code mode: the gateway serves a view of the bridge whose tools are the three meta-tools; their
  // programs call the real bridge, so each call takes the path (limits, audit, stats) of a direct one.
  const served = options["code-mode"] === true ? await codeModeView(bridge) : bridge;
  try {
    if (!listen) {
      const channel = serveGatewayStdio(served, {
        forwarder,
        telemetry,
        adminTools,
        limits,
        // This bridge serves nobody else: every upstream log message is this client's business.
        soleClient: true,
        listWaitMs: options["list-wait"],
        fastPath: fastPathEnabled(io.env),
        onProblem: (message) => io.stderr.write(`mcp-bridge serve: ${message}\n`),
      });
      // Any end of the channel (stdin's end, stdout's failure) or a signal stops the gateway; the
      // finally below then takes the upstream servers down.
      await Promise.race([untilAborted(io.signal), channel.closed]);
      await channel.close();
      return 0;
    }
    const gateway = await startGateway({
      bridge: served,
      forwarder,
      adminTools,
      adminToken,
      host: listen.host,
      port: listen.port,
      tokens,
      oauth: file?.oauth,
      limits,
      maxBodyBytes,
      drainTimeoutMs,
      sessionIdleMs,
      telemetry,
      store: options.store,
      replicaId: options["replica-id"],
      advertiseUrl: options["advertise-url"],
      clusterSecret,
      logger: logged.logger,
      listWaitMs: options["list-wait"],
      fastPath: fastPathEnabled(io.env),
    });
    io.stderr.write(`mcp-bridge gateway listening on ${gateway.url}\n`);
    if (context.global.json) io.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
    await untilAborted(io.signal);
    // SIGTERM: stop accepting, let in-flight calls finish (bounded), then exit.
    await gateway.drain();
    return 0;
  } finally {
    unwatch();
    forwarder.rounds.close();
    await bridge.close();
    warmCatalog?.close();
    await observed.close();
  }
}

export const serveCommand = defineCommand({
  name: "serve",
  summary: "serve every configured server's tools as one MCP server (stdio or Streamable HTTP)",
  description: `Bearer tokens: ${TOKENS_ENV} (comma-separated) and/or --auth FILE. Binding other than 127.0.0.1 requires a token.`,
  flags: SERVE_FLAGS,
  positionals: { usage: "", min: 0, max: 0 },
  examples: [
    "serve --stdio",
    "serve --http 8080",
    "serve --http 0.0.0.0:8080 --auth tokens.json",
    "serve --http 8080 --metrics 9464",
  ],
  run: runServe,
});

/** Loaded only with --code-mode: the sandbox and its QuickJS stay out of every other serve. */
async function codeModeView(bridge: Bridge): Promise<Bridge> {
  const { codeModeBridge } = await import("../../../codemode/code-mode-bridge.js");
  return codeModeBridge(bridge);
}
