import type { Client } from "@modelcontextprotocol/client";
import type { ResolvedConfig, ServerDefinition } from "../config/model.js";
import type { ServerStatus } from "../connection/server-status.js";
import { CallStats } from "../registry/stats.js";
import type { ToolDefinition } from "../registry/tool-definition.js";
import { OverflowFiles } from "../results/overflow.js";
import { TypedEmitter } from "../util/events.js";
import type { Logger } from "../util/logger.js";
import { SerialQueue } from "../util/serial-queue.js";
import { errorText } from "../util/text-of.js";
import type { BridgeEventMap, ToolEntry } from "./api.js";
import { BridgeFeatures } from "./features/bridge-features.js";
import type { PromptGuard } from "./features/feature-context.js";
import type { ResolvedBridgeOptions } from "./options.js";
import { DefinitionPins } from "./pins/definition-pins.js";
import { PublishedTools } from "./published-tools.js";
import { RestartGates } from "./servers/restart-gates.js";
import { ServerTable } from "./servers/server-table.js";
import { ToolListCache } from "./tool-lists/tool-list-cache.js";

/**
 * The live state of one bridge. The runtime's modules (calls.ts, reload.ts, tool-entries.ts and the
 * server lifecycle in servers/) are functions over it that read what they need by property: a reload
 * replaces `config` and the next call reads the new one; nothing hands out getters or callbacks. It
 * holds their data (classes of modules that import nothing back), never their functions, so no
 * module of bridge/ imports one that imports it (test/architecture.test.ts).
 */
export interface BridgeState {
  /** The config in force (a reload replaces it whole, atomically). */
  config: ResolvedConfig;
  readonly options: ResolvedBridgeOptions;
  readonly logger: Logger;
  readonly events: TypedEmitter<BridgeEventMap>;
  /** The current record of each server, and the replaced ones until they have closed. */
  readonly servers: ServerTable;
  /** The tools the host sees, and which of them run as tasks. */
  readonly tools: PublishedTools;
  readonly toolListCache: ToolListCache;
  /** Each server's pinned tool definitions, the drift of its listings, the tools kept out. */
  readonly pins: DefinitionPins;
  readonly stats: CallStats;
  /** The bridge's overflow files (written within the budget, removed on close). */
  readonly overflowFiles: OverflowFiles;
  /** The callable `ToolEntry` of each tool definition (tool-entries.ts makes them). */
  readonly entries: WeakMap<ToolDefinition, ToolEntry>;
  /** One reload (or restart) changes the servers at a time. */
  readonly reloads: SerialQueue;
  /** Servers being restarted: a call to one waits at its gate. */
  readonly restartGates: RestartGates;
  /** Restarts under way, by server: a second restart of the same server shares the first. */
  readonly restartsUnderWay: Map<string, Promise<ServerStatus>>;
  /** Set once `close()` began: every call and reload from then on fails with BRIDGE_CLOSED. */
  closing: Promise<void> | undefined;
  /** Registers the client-side features on each new SDK client of a server (before it connects). */
  readonly clientSetup: (definition: ServerDefinition, client: Client) => void;
  /** Whether `startAll` began, and whether the startup total was logged (servers/startup-report.ts). */
  readonly startup: { begun: boolean; reported: boolean };
  /** MCP beyond tools (resources, prompts, ...): told of state changes and settings changes. */
  readonly features: BridgeFeatures;
  /** The guardrails' checks of prompts, set by the bridge once the state exists (guardrails.ts). */
  promptGuard?: PromptGuard;
}

/** The state of a new bridge, with the MCP features built over it (they read it by property too). */
export function createBridgeState(config: ResolvedConfig, options: ResolvedBridgeOptions): BridgeState {
  const logger = options.logger;
  const state: Omit<BridgeState, "features"> & { features?: BridgeFeatures } = {
    config,
    options,
    logger,
    events: new TypedEmitter((error) =>
      logger.error("A bridge event listener threw", { error: errorText(error) }),
    ),
    servers: new ServerTable(),
    tools: new PublishedTools(
      {
        reservedToolNames: options.reservedToolNames,
        toolFilter: options.toolFilter,
        resourceTools: options.resourceTools,
        logger,
      },
      config,
    ),
    toolListCache: new ToolListCache({
      dir: options.toolListCacheDir,
      option: options.catalogCache,
      logger,
      shared: options.sharedCatalog,
    }),
    pins: new DefinitionPins({
      dir: options.pinsDir,
      logger,
      redact: options.secrets.text,
      onDrift: options.onDrift,
      confirmDrift: options.confirmDrift,
      emit: (event) => state.events.emit("pinsDrifted", event),
    }),
    stats: new CallStats(),
    overflowFiles: new OverflowFiles(),
    entries: new WeakMap(),
    reloads: new SerialQueue(),
    restartGates: new RestartGates(),
    restartsUnderWay: new Map(),
    closing: undefined,
    startup: { begun: false, reported: false },
    clientSetup: (definition, client) => state.features?.register(definition, client),
  };
  state.features = new BridgeFeatures(state as BridgeState);
  return state as BridgeState;
}
