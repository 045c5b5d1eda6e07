import type { BridgeSettings, ServerDefinition } from "../../config/model.js";
import type { ToolDefinition } from "../../registry/tool-definition.js";
import type { ToolEntry } from "../api.js";
import type { BridgeState } from "../bridge-state.js";
import { screenDefinitions } from "../guard-definitions.js";
import { declaresToolTasks } from "../tasks.js";
import { toolEntry } from "../tool-entries.js";
import { ServerRecord } from "./server-record.js";
import { reportConnected, reportStartup } from "./startup-report.js";

/**
 * A server's life in the bridge, as functions over the bridge's state: opening its record, making it
 * current (its events routed), and publishing its tools.
 */

export { isSelected } from "./selection.js";

/**
 * Whether a server the catalog cache lists waits for its first use instead of starting with the
 * bridge: under `lazyWithCatalog`, unless its entry says `lazy: false` or `required: true` (a
 * required server is checked at start).
 */
export function startsOnDemand(state: BridgeState, definition: ServerDefinition): boolean {
  return state.options.lazyWithCatalog && definition.lazy !== false && !definition.required;
}

/** A record for the server (auth set up, connection not started); never rejects (see ServerRecord.open). */
export function openServer(
  state: BridgeState,
  definition: ServerDefinition,
  settings: BridgeSettings,
): Promise<ServerRecord> {
  return ServerRecord.open(definition, settings, state.options, state.clientSetup);
}

/**
 * Makes the record the server's current one and routes its events (a replaced record's are ignored).
 * Resolves once a record closed at once (`now`) is gone; a retired one closes in the background.
 */
export function installServer(
  state: BridgeState,
  record: ServerRecord,
  options: { now?: boolean } = {},
): Promise<void> {
  record.connection?.on("toolsChanged", () => {
    // A live list: it replaces the cached one (silently when they are the same) and is saved.
    const wasCached = state.toolListCache.end(record);
    if (state.servers.isCurrent(record)) state.toolListCache.save(record, state.config.settings);
    publishTools(state, record, { quietIfSame: wasCached });
  });
  record.connection?.on("stateChanged", (status) => {
    if (!state.servers.isCurrent(record)) return;
    if (record.connection) state.features.stateChanged(record.connection, status);
    // A replacement that failed lists no tools of its own: drop the ones kept from its predecessor
    // or read from the tool-list cache.
    if (status.state === "failed" || status.state === "closed") state.toolListCache.end(record);
    if (status.state === "failed" && state.tools.registry.forServer(record.name).length > 0) {
      publishTools(state, record);
    }
    state.events.emit("serverStateChanged", status);
    if (status.state === "connected") reportConnected(state, status);
    else reportStartup(state);
  });
  const replaced = state.servers.set(record, options);
  return options.now ? replaced : Promise.resolve();
}

/**
 * Publishes a server's tools: the cached list while the server is listed from the tool-list cache,
 * else its live list; emits `toolsChanged` (not with `quietIfSame` when nothing changed). Which tools
 * run as tasks is decided here, from the capabilities the list was taken under.
 */
export function publishTools(
  state: BridgeState,
  record: { readonly name: string; readonly definition: ServerDefinition },
  options: { quietIfSame?: boolean } = {},
): void {
  const current = state.servers.get(record.name);
  if (current !== record) return;
  const cached = state.toolListCache.tools(current);
  const listing = current.connection?.listing();
  const tools = cached ?? listing?.tools ?? [];
  const toolTasks = cached
    ? state.toolListCache.toolTasks(current)
    : declaresToolTasks(listing?.capabilities);
  const previous = state.tools.registry.forServer(record.name);
  const before = new Set(previous.map((tool) => tool.name));
  // Tools whose definitions drifted from their pins may be kept out (onDrift: block, or ask until a
  // person accepts them; then the whole list is published again).
  const checked = state.pins.check(current.definition, "tool", tools, state.config.settings.onDrift);
  void checked.question?.then((accepted) => {
    if (accepted) publishTools(state, record);
  });
  const screened = screenDefinitions(state, record.name, "tool", checked.admitted);
  state.tools.publish(record.name, current.definition.tools, screened, toolTasks);
  if (options.quietIfSame && sameDefinitions(previous, state.tools.registry.forServer(record.name))) return;
  const after = toolEntries(state, record.name);
  for (const tool of after) before.delete(tool.name);
  state.events.emit("toolsChanged", { server: record.name, tools: after, removed: [...before] });
}

/** The callable entries of the published tools (of one server with `server`). */
export function toolEntries(state: BridgeState, server: string | undefined): ToolEntry[] {
  return state.tools.list(server).map((definition) => toolEntry(state, definition));
}

/** The same definition objects in the same order (the registry keeps unchanged definitions' objects). */
function sameDefinitions(a: readonly ToolDefinition[], b: readonly ToolDefinition[]): boolean {
  return a.length === b.length && a.every((definition, index) => definition === b[index]);
}
