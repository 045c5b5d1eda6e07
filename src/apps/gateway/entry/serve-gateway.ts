import type { Bridge, BridgeOptions } from "../../../bridge/api.js";
import type { SharedToolLists } from "../../../bridge/tool-lists/shared-tool-lists.js";
import { silentLogger } from "../../../util/logger.js";
import { servedNameSettings } from "../faces/mcp/served-names.js";
import { RequestForwarder } from "../forwarding/forward.js";
import type { StateKeys } from "../identity/sealed-state.js";
import { type Gateway, startGateway } from "./gateway.js";
import type { GatewayOptions } from "./gateway-options.js";
import { serveGatewayStdio } from "./stdio-server.js";
import { type GatewayTelemetry, gatewayTelemetry } from "./telemetry-setup.js";

/**
 * What `serveGateway` is given: how to start the bridge behind it, where to listen, and the HTTP
 * gateway's own options (`startGateway`'s; on stdio only `limits`, `adminTools` and `fastPath` apply).
 */
export interface ServeGatewayOptions
  extends Omit<GatewayOptions, "bridge" | "forwarder" | "telemetry" | "host" | "port"> {
  /** How the bridge starts (config, servers, cwd, env…): `serveGateway` starts it and closes it. */
  readonly bridge?: BridgeOptions;
  /** `"stdio"`: MCP on this process's stdin/stdout; else Streamable HTTP at `host` (default 127.0.0.1) and `port`. */
  readonly listen: "stdio" | { readonly host?: string; readonly port: number };
  /** Keys sealing the `requestState` of multi-round calls, the same on every replica (see `readStateKeys`). */
  readonly stateKeys?: StateKeys;
  /** The served tool names, `{server}` and `{tool}` replaced; default the config's `serveToolNameFormat`, else `{server}_{tool}`. */
  readonly toolNames?: string;
  /** Serve only the code-mode meta-tools (search_tools, describe_tools, execute_code; see docs/code-mode.md). */
  readonly codeMode?: boolean;
  /** A Prometheus endpoint at `/metrics` on this address (needs the OpenTelemetry SDK packages). */
  readonly metrics?: { readonly host: string; readonly port: number };
  /** Told the Prometheus endpoint's URL once it listens (before the bridge starts). */
  readonly onMetrics?: (url: string) => void;
  /** Told of the bridge once started; what it returns runs when the gateway has stopped. */
  readonly watch?: (bridge: Bridge) => () => void;
  /** stdio: what the channel refused (a line over its limit), for the operator. */
  readonly onProblem?: (message: string) => void;
}

/** A gateway `serveGateway` started, with the bridge it started behind it. */
export interface ServedGateway {
  readonly bridge: Bridge;
  /** The MCP endpoint's URL (`http://HOST:PORT/mcp`); undefined on stdio. */
  readonly url: string | undefined;
  /** Resolves when the stdio channel ended (stdin's end, stdout's failure); never over HTTP. */
  readonly ended: Promise<void>;
  /**
   * HTTP: stop accepting, let the calls in flight finish (bounded by `drainTimeoutMs`); stdio: close
   * the channel. Then the bridge, its upstream servers and the telemetry close.
   */
  drain(): Promise<void>;
}

/**
 * `mcp-bridge serve` as a function: starts the bridge (its upstream elicitation and sampling routed
 * to the client whose call caused them, a tool that drifts from its pins kept out, the names `serve`
 * gives), then serves it as one MCP server over HTTP or stdio. The gateway answers at once with the
 * tools of the servers already up and tells clients as the others come (it does not wait for
 * `bridge.ready()`): a host whose start timeout is shorter than a slow server's keeps the rest.
 */
export async function serveGateway(options: ServeGatewayOptions): Promise<ServedGateway> {
  const observed = await gatewayTelemetry(options.metrics);
  if (observed.metricsUrl) options.onMetrics?.(observed.metricsUrl);
  const forwarder = new RequestForwarder({ stateKeys: options.stateKeys });
  const { bridge, warmCatalog } = await startServedBridge(options, forwarder, observed);
  const unwatch = options.watch?.(bridge);
  const stopAll = async () => {
    unwatch?.();
    forwarder.rounds.close();
    await bridge.close();
    warmCatalog?.close();
    await observed.close();
  };
  try {
    const face = await startFace(options, bridge, forwarder, observed);
    return {
      bridge,
      url: face.url,
      ended: face.ended,
      drain: async () => {
        try {
          await face.drain();
        } finally {
          await stopAll();
        }
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The bridge behind the gateway. Not `openBridge`: that closes the bridge as soon as SIGTERM arrives,
 * and a drain needs the upstream servers until the calls in flight are done. With a cluster store a
 * replica starts warm: the tool lists its peers saw (bridge/shared-tool-lists.ts).
 */
async function startServedBridge(
  options: ServeGatewayOptions,
  forwarder: RequestForwarder,
  observed: GatewayTelemetry,
): Promise<{ bridge: Bridge; warmCatalog: (SharedToolLists & { close(): void }) | undefined }> {
  const [{ startBridge }, { loadConfig }] = await Promise.all([
    import("../../../bridge/bridge.js"),
    import("../../../config/load.js"),
  ]);
  const given = options.bridge ?? {};
  const warmCatalog = options.store
    ? await (await import("../cluster/redis-catalog.js")).connectRedisCatalog(
        options.store,
        options.clusterSecret,
      )
    : undefined;
  // The config's `serveToolNameFormat`, read before the bridge starts (the bridge names its tools as
  // it starts). Only the settings are wanted: no project server is admitted (nor its values expanded)
  // here; a config that cannot be read is left for the bridge's start to report.
  const configured = await loadConfig({ ...loadOptionsOf(given), admitProjectServer: () => false })
    .then((loaded) => loaded.settings.serveToolNameFormat)
    .catch(() => undefined);
  const bridge = await startBridge({
    ...given,
    sharedCatalog: warmCatalog,
    settings: servedNameSettings(options.toolNames, configured),
    logger: options.logger ?? given.logger ?? silentLogger,
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
  return { bridge, warmCatalog };
}

function loadOptionsOf(given: BridgeOptions) {
  return {
    path: given.config,
    servers: given.servers,
    extraServers: given.extraServers,
    cwd: given.cwd,
    env: given.env,
  };
}

/** The MCP face over `bridge`: stdio or HTTP, as `listen` says. */
async function startFace(
  options: ServeGatewayOptions,
  bridge: Bridge,
  forwarder: RequestForwarder,
  observed: GatewayTelemetry,
): Promise<{ url: string | undefined; ended: Promise<void>; drain(): Promise<void> }> {
  const adminTools = options.adminTools === true || bridge.config.settings.gatewayAdminTools === true;
  // Code mode: a view of the bridge whose tools are the meta-tools; their programs call the real
  // bridge, so each call takes the path (limits, audit, stats) of a direct one.
  const served = options.codeMode === true ? await codeModeView(bridge) : bridge;
  const telemetry = observed.telemetry;
  if (options.listen === "stdio") {
    const channel = serveGatewayStdio(served, {
      forwarder,
      telemetry,
      adminTools,
      limits: options.limits,
      // This bridge serves nobody else: every upstream log message is this client's business.
      soleClient: true,
      listWaitMs: options.listWaitMs,
      llmResults: options.llmResults,
      fastPath: options.fastPath,
      onProblem: options.onProblem,
    });
    return { url: undefined, ended: channel.closed, drain: () => channel.close() };
  }
  // What only serveGateway reads stays here; the rest are startGateway's own options.
  const {
    listen,
    bridge: _b,
    stateKeys: _k,
    toolNames: _t,
    codeMode: _c,
    metrics: _m,
    onMetrics: _o,
    watch: _w,
    onProblem: _p,
    ...http
  } = options;
  const gateway: Gateway = await startGateway({
    ...http,
    bridge: served,
    forwarder,
    adminTools,
    telemetry,
    host: listen.host,
    port: listen.port,
  });
  return { url: gateway.url, ended: new Promise<void>(() => undefined), drain: () => gateway.drain() };
}

/** Loaded only with code mode: the sandbox and its QuickJS stay out of every other gateway. */
async function codeModeView(bridge: Bridge): Promise<Bridge> {
  const { codeModeBridge } = await import("../../../codemode/code-mode-bridge.js");
  return codeModeBridge(bridge);
}
