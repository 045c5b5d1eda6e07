import type { AuthOptions } from "../auth/oauth-client.js";
import { DEFAULT_BRIDGE_OPTIONS } from "../config/defaults.js";
import type { LoadConfigOptions } from "../config/load.js";
import type { BridgeSettings, DriftAction } from "../config/model.js";
import type { ToolFilterCallback } from "../registry/tool-definition.js";
import { OVERFLOW_BUDGET } from "../results/overflow.js";
import type { Telemetry } from "../telemetry/create-telemetry.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { packageInfo } from "../util/package-info.js";
import { SecretMask } from "../util/redact.js";
import type { ApproveCall, BridgeOptions, ElicitationHandler, ResultOptions } from "./api.js";
import { declineElicitation } from "./features/elicitation.js";
import type { SharedToolLists } from "./tool-lists/shared-tool-lists.js";
import { toolListCacheDir, toolListCacheSwitchedOff } from "./tool-lists/tool-list-files.js";

/** `BridgeOptions` with every default applied, once, where the library is entered. */
export interface ResolvedBridgeOptions {
  /** What `loadConfig` gets, on start and on every reload. */
  readonly load: LoadConfigOptions;
  /** The host environment: `${VAR}` expansion, variables servers inherit, the auth store's location. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The host's logger, behind `secrets` (every message and field masked). */
  readonly logger: Logger;
  /**
   * The secrets of every config this bridge loaded: the one redaction applied to all text a server
   * sends (log messages, stderr, errors, span statuses) before any consumer sees it.
   */
  readonly secrets: SecretMask;
  readonly wait: boolean;
  /** Names of the servers to start; undefined starts every server. */
  readonly only: ReadonlySet<string> | undefined;
  readonly tags: ReadonlySet<string> | undefined;
  readonly reservedToolNames: readonly string[];
  readonly toolFilter: ToolFilterCallback | undefined;
  readonly onError: "throw" | "result";
  readonly validateArguments: boolean;
  readonly approveCall: ApproveCall | undefined;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly auth: AuthOptions;
  readonly onElicitation: ElicitationHandler;
  /** The host gave its own elicitation handler (URL mode is declared only then). */
  readonly hostElicitation: boolean;
  readonly enforceRequired: boolean;
  readonly results: ResultOptions;
  readonly onSampling: BridgeOptions["onSampling"];
  readonly resourceTools: boolean | undefined;
  /** The host's `catalogCache` option (overrides the setting). */
  readonly catalogCache: boolean | undefined;
  /** BridgeOptions.lazyWithCatalog. */
  readonly lazyWithCatalog: boolean;
  /** The catalog cache's folder; undefined when the cache is off for this bridge or no folder is known. */
  readonly toolListCacheDir: string | undefined;
  /** The shared catalog cache; undefined when the catalog cache is off or none was given. */
  readonly sharedCatalog: SharedToolLists | undefined;
  /** Loaded by `startBridge` from `BridgeOptions.telemetry`; undefined when off or not installed. */
  readonly telemetry: Telemetry | undefined;
  /** The pins' folder (the cache folder, whatever the catalog cache's switch); undefined: pins off. */
  readonly pinsDir: string | undefined;
  /** The host's default for a drift from the pins (under the config's `onDrift`). */
  readonly onDrift: DriftAction;
  readonly confirmDrift: BridgeOptions["confirmDrift"];
}

/** `MCP_BRIDGE_PINS=0|false|off|no` turns pinning off for a whole environment (the test suite). */
export function pinsSwitchedOff(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.MCP_BRIDGE_PINS?.trim().toLowerCase();
  return value === "0" || value === "false" || value === "off" || value === "no";
}

/** `telemetry` is what `createTelemetry(options.telemetry ?? true)` gave (loading it is async). */
export function resolveBridgeOptions(options: BridgeOptions, telemetry?: Telemetry): ResolvedBridgeOptions {
  const env = options.env ?? process.env;
  const secrets = new SecretMask();
  const catalogCacheOff =
    options.catalogCache === false || (options.catalogCache === undefined && toolListCacheSwitchedOff(env));
  return {
    load: {
      path: options.config,
      servers: options.servers,
      extraServers: options.extraServers,
      settings: options.settings,
      cwd: options.cwd,
      env,
      admitProjectServer: options.admitProjectServer,
      resolveInput: options.resolveInput,
      only: options.only === undefined ? undefined : new Set(options.only),
    },
    env,
    logger: options.logger ? secrets.logger(options.logger) : silentLogger,
    secrets,
    wait: options.wait ?? DEFAULT_BRIDGE_OPTIONS.wait,
    only: options.only === undefined ? undefined : new Set(options.only),
    tags: options.tags === undefined ? undefined : new Set(options.tags),
    reservedToolNames: options.reservedToolNames ?? DEFAULT_BRIDGE_OPTIONS.reservedToolNames,
    toolFilter: options.toolFilter,
    onError: options.onError ?? DEFAULT_BRIDGE_OPTIONS.onError,
    validateArguments: options.validateArguments ?? DEFAULT_BRIDGE_OPTIONS.validateArguments,
    approveCall: options.approveCall,
    clientInfo: options.clientInfo ?? packageInfo(),
    results: options.results ?? {},
    onSampling: options.onSampling,
    resourceTools: options.resourceTools,
    catalogCache: options.catalogCache,
    lazyWithCatalog: options.lazyWithCatalog === true,
    toolListCacheDir: catalogCacheOff ? undefined : (options.cacheDir ?? toolListCacheDir(env)),
    sharedCatalog: catalogCacheOff ? undefined : options.sharedCatalog,
    auth: { ...options.auth, env },
    onElicitation: options.onElicitation ?? declineElicitation,
    hostElicitation: options.onElicitation !== undefined,
    enforceRequired: options.enforceRequired ?? DEFAULT_BRIDGE_OPTIONS.enforceRequired,
    telemetry,
    pinsDir:
      options.pins === false || (options.pins === undefined && pinsSwitchedOff(env))
        ? undefined
        : (options.cacheDir ?? toolListCacheDir(env)),
    onDrift: options.onDrift ?? "warn",
    confirmDrift: options.confirmDrift,
  };
}

/** Policies already merged, per host option object and settings object (both live as long as a bridge). */
const policies = new WeakMap<ResultOptions, WeakMap<BridgeSettings, ResultOptions>>();

/**
 * How large results reach the model: the host's `results` option, key by key, over the config's
 * settings (read per call, so a reloaded config applies to the next call; merged once per settings
 * object, as this runs on every call).
 */
export function resultPolicy(options: ResultOptions, settings: BridgeSettings): ResultOptions {
  let bySettings = policies.get(options);
  if (!bySettings) {
    bySettings = new WeakMap();
    policies.set(options, bySettings);
  }
  let policy = bySettings.get(settings);
  if (!policy) {
    policy = {
      maxTokens: options.maxTokens ?? settings.maxResultTokens,
      overflow: options.overflow ?? settings.resultOverflow,
      overflowDir: options.overflowDir ?? settings.resultOverflowDir,
      overflowMaxBytes:
        options.overflowMaxBytes ?? settings.resultOverflowMaxBytes ?? OVERFLOW_BUDGET.maxBytes,
      overflowMaxAgeMs:
        options.overflowMaxAgeMs ?? settings.resultOverflowMaxAgeMs ?? OVERFLOW_BUDGET.maxAgeMs,
    };
    bySettings.set(settings, policy);
  }
  return policy;
}
