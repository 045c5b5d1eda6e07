import { resolve } from "node:path";
import type { BridgeOptions } from "../../../bridge/types.js";
import { parseDuration } from "../../../util/duration.js";
import { servedNameSettings } from "../../gateway/served-names.js";
import { usageError } from "../args.js";
import { defineCommand } from "../command.js";
import { type CommandContext, cliBridgeOptions } from "../context.js";
import { checkPortFree } from "../port-check.js";

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

type ServeOptions = {
  stdio?: boolean;
  http?: string;
  auth?: string;
  "max-body"?: string;
  drain?: string;
  "session-idle"?: string;
  "max-calls"?: string;
  "calls-per-minute"?: string;
  metrics?: string;
  "tool-names"?: string;
};

/** A positive integer flag, or undefined when not given. */
function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n > 0))
    throw usageError(`--${flag} wants a positive whole number, got "${value}"`);
  return n;
}

/** `[HOST:]PORT` -> host and port; a bare port binds 127.0.0.1. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw usageError(`--http wants [HOST:]PORT (like 8080 or 0.0.0.0:8080), got "${value}"`);
  return { host: (match[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port };
}

const untilAborted = (signal: AbortSignal | undefined) =>
  new Promise<void>((done) => {
    if (!signal) return;
    if (signal.aborted) done();
    signal.addEventListener("abort", () => done(), { once: true });
  });

async function runServe(context: CommandContext<ServeOptions>): Promise<number> {
  const { options, io } = context;
  if (Boolean(options.stdio) === (options.http !== undefined))
    throw usageError("Give exactly one of --stdio and --http [HOST:]PORT");
  const listen = options.http === undefined ? undefined : parseListen(options.http);
  // Before anything starts: a taken port is found now, not after every upstream server started.
  if (listen) await checkPortFree(listen);
  const toolNames = options["tool-names"];
  if (toolNames !== undefined && !toolNames.includes("{tool}"))
    throw usageError(
      `--tool-names wants a format containing "{tool}" (like "{server}_{tool}"), got "${toolNames}"`,
    );
  // Loaded once the command line is known to be good: every other command and `--help` skip them.
  const [{ startBridge }, { readAuthFile, tokensFromEnv }, gateway, { gatewayTelemetry }] = await Promise.all(
    [
      import("../../../bridge/bridge.js"),
      import("../../gateway/auth-file.js"),
      import("../../gateway/index.js"),
      import("../../gateway/telemetry.js"),
    ],
  );
  const { RequestForwarder, serveGatewayStdio, startGateway } = gateway;
  const file = options.auth ? await readAuthFile(resolve(io.cwd, options.auth), io.env) : undefined;
  const tokens = [...tokensFromEnv(io.env[TOKENS_ENV]), ...(file?.tokens ?? [])];
  const maxBodyBytes = options["max-body"] === undefined ? undefined : Number(options["max-body"]);
  if (maxBodyBytes !== undefined && !(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0)) {
    throw usageError(`--max-body wants a positive number of bytes, got "${options["max-body"]}"`);
  }
  const maxConcurrentCalls = positive(options["max-calls"], "max-calls");
  const callsPerMinute = positive(options["calls-per-minute"], "calls-per-minute");
  const drainTimeoutMs = options.drain === undefined ? undefined : parseDuration(options.drain);
  const sessionIdleMs =
    options["session-idle"] === undefined ? undefined : parseDuration(options["session-idle"]);
  // Spans and histograms of the gateway and of its bridge: to the process's global OpenTelemetry
  // providers, or with --metrics to a Prometheus endpoint of our own.
  const observed = await gatewayTelemetry(
    options.metrics === undefined ? undefined : parseListen(options.metrics),
  );
  const telemetry = observed.telemetry;
  if (observed.metricsUrl) io.stderr.write(`Prometheus metrics at ${observed.metricsUrl}\n`);
  // Not openBridge: that closes the bridge as soon as SIGTERM arrives, and a drain needs the upstream
  // servers until the in-flight calls are done.
  // Upstream elicitation and sampling go to the downstream client whose call caused them; the
  // gateway's own terminal is not asked (under --stdio it is the MCP channel itself).
  const forwarder = new RequestForwarder();
  const bridgeOptions = await cliBridgeOptions(context);
  const bridge = await startBridge({
    ...bridgeOptions,
    settings: servedNameSettings(options["tool-names"], await configuredServeNames(bridgeOptions)),
    onElicitation: forwarder.elicitation,
    onSampling: forwarder.sampling,
    telemetry: observed.setting,
  }).catch(async (error: unknown) => {
    await observed.close();
    throw error;
  });
  await bridge.ready();
  try {
    if (!listen) {
      const served = serveGatewayStdio(bridge, {
        forwarder,
        telemetry,
        onProblem: (message) => io.stderr.write(`mcp-bridge serve: ${message}\n`),
      });
      // Any end of the channel (stdin's end, stdout's failure) or a signal stops the gateway; the
      // finally below then takes the upstream servers down.
      await Promise.race([untilAborted(io.signal), served.closed]);
      await served.close();
      return 0;
    }
    const gateway = await startGateway({
      bridge,
      forwarder,
      host: listen.host,
      port: listen.port,
      tokens,
      ...(file?.oauth ? { oauth: file.oauth } : {}),
      limits: {
        ...(maxConcurrentCalls === undefined ? {} : { maxConcurrentCalls }),
        ...(callsPerMinute === undefined ? {} : { callsPerMinute }),
      },
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      ...(drainTimeoutMs === undefined ? {} : { drainTimeoutMs }),
      ...(sessionIdleMs === undefined ? {} : { sessionIdleMs }),
      ...(telemetry ? { telemetry } : {}),
    });
    io.stderr.write(`mcp-bridge gateway listening on ${gateway.url}\n`);
    if (context.global.json) io.stdout.write(`${JSON.stringify({ url: gateway.url })}\n`);
    await untilAborted(io.signal);
    // SIGTERM: stop accepting, let in-flight calls finish (bounded), then exit.
    await gateway.drain();
    return 0;
  } finally {
    forwarder.rounds.close();
    await bridge.close();
    await observed.close();
  }
}

export const serveCommand = defineCommand({
  name: "serve",
  summary: "serve every configured server's tools as one MCP server (stdio or Streamable HTTP)",
  description: `Bearer tokens: ${TOKENS_ENV} (comma-separated) and/or --auth FILE. Binding other than 127.0.0.1 requires a token.`,
  flags: {
    stdio: { type: "boolean", description: "serve MCP on stdin/stdout" },
    http: {
      type: "string",
      value: "[HOST:]PORT",
      description: "serve Streamable HTTP at /mcp (host 127.0.0.1 unless given)",
    },
    auth: {
      type: "string",
      value: "FILE",
      description: "JSON file of bearer tokens, OAuth (JWT) settings and profiles",
    },
    "max-body": {
      type: "string",
      value: "BYTES",
      description: "largest request body (default 4194304; 413 above)",
    },
    "max-calls": {
      type: "string",
      value: "N",
      description: "tool calls one client may run at once (default 16)",
    },
    "calls-per-minute": {
      type: "string",
      value: "N",
      description: "tool calls one client may start per minute",
    },
    drain: {
      type: "string",
      value: "DURATION",
      description: "on SIGTERM, how long in-flight calls may finish (default 30s)",
    },
    "session-idle": {
      type: "string",
      value: "DURATION",
      description: "close a 2025-11-25 session after this long without a request (default 30m; 0 never)",
    },
    "tool-names": {
      type: "string",
      value: "FORMAT",
      description: 'served tool names; {server} and {tool} are replaced (default "{server}_{tool}")',
    },
    metrics: {
      type: "string",
      value: "[HOST:]PORT",
      description:
        "serve Prometheus metrics at /metrics (host 127.0.0.1 unless given; needs the OpenTelemetry SDK packages)",
    },
  },
  positionals: { usage: "", min: 0, max: 0 },
  examples: [
    "serve --stdio",
    "serve --http 8080",
    "serve --http 0.0.0.0:8080 --auth tokens.json",
    "serve --http 8080 --metrics 9464",
  ],
  run: runServe,
});
