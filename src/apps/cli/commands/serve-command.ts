import { resolve } from "node:path";
import { fastPathEnabled } from "../../gateway/fast-path/fast-call.js";
import type { ServedGateway } from "../../gateway/index.js";
import { cliBridgeOptions } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
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
    type: "string",
    value: "FILE",
    description: "JSON file of bearer tokens, OAuth (JWT) settings and profiles",
  },
  "state-keys": {
    type: "string",
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
    type: "string",
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
    bridge: await cliBridgeOptions(context),
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
    replicaId: options["replica-id"],
    advertiseUrl: options["advertise-url"],
    clusterSecret,
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
