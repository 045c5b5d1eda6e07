import type { BridgeSettings, ResolvedConfig, ServerDefinition } from "../config/model.js";
import type { Logger } from "../util/logger.js";
import type { ReloadSummary } from "./api.js";
import type { ToolCatalog } from "./published-tools.js";
import { planReload, reloadSummary } from "./reload.js";
import { type ServerRecord, stillConnecting } from "./server-record.js";
import type { ServerTable } from "./server-table.js";
import { closedError } from "./surface-host.js";

/** What applying a new config needs of its bridge. */
export interface ReloadHost {
  readonly load: () => Promise<ResolvedConfig>;
  readonly config: () => ResolvedConfig;
  readonly setConfig: (next: ResolvedConfig) => void;
  readonly closing: () => boolean;
  readonly selected: (definition: ServerDefinition) => boolean;
  readonly open: (definition: ServerDefinition, settings: BridgeSettings) => Promise<ServerRecord>;
  readonly install: (record: ServerRecord) => void;
  readonly publishTools: (record: ServerRecord) => void;
  /** The settings changed: everything derived from them (names, surface caches) is rebuilt. */
  readonly settingsChanged: () => void;
  readonly toolsRemoved: (server: string, removed: string[]) => void;
  readonly servers: ServerTable;
  readonly tools: ToolCatalog;
  readonly logger: Logger;
}

/**
 * One reload: loads the config again, opens the servers it adds or changes, then swaps everything in
 * at once (no await between the swap's steps, so calls and events see the old or the new state, never
 * a mix). Resolves with the summary and the new servers' start, which the caller may wait for.
 */
export async function applyReload(
  host: ReloadHost,
): Promise<{ summary: ReloadSummary; starting: Promise<unknown> }> {
  if (host.closing()) throw closedError();
  const next = await host.load();
  const plan = planReload(host.config().servers, next.servers);
  const fresh = await Promise.all(
    [...plan.restarted, ...plan.added]
      .filter((definition) => host.selected(definition))
      .map((definition) => host.open(definition, next.settings)),
  );
  if (host.closing()) {
    await Promise.all(fresh.map((record) => record.close()));
    throw closedError();
  }
  // From here on nothing awaits: the swap is atomic for calls and events.
  for (const warning of next.warnings) host.logger.warn(warning.message, { ...warning });
  const settingsChanged = JSON.stringify(next.settings) !== JSON.stringify(host.config().settings);
  host.setConfig(next);
  for (const definition of [...plan.refiltered, ...plan.unchanged]) {
    const record = host.servers.get(definition.name);
    if (record) record.definition = definition;
  }
  if (settingsChanged) {
    host.settingsChanged();
    for (const record of host.servers.records()) host.publishTools(record);
  } else {
    host.tools.registry.declareServers(next.servers.map((server) => server.name));
    for (const definition of plan.refiltered) {
      const record = host.servers.get(definition.name);
      if (record) host.publishTools(record);
    }
  }
  for (const definition of plan.removed) {
    host.servers.delete(definition.name);
    const removed = host.tools.registry.forServer(definition.name).map((tool) => tool.name);
    host.tools.registry.removeServer(definition.name);
    host.toolsRemoved(definition.name, removed);
  }
  // A replaced server's last tools stay listed until its new connection lists its own, so a call
  // made meanwhile finds the new record and waits for it instead of failing with TOOL_NOT_FOUND.
  // The old process runs until its calls in flight have ended.
  for (const record of fresh) host.install(record);
  const starting = Promise.all(fresh.map((record) => record.start()));
  // Old tools are kept only for a replacement that is connecting now (not disabled, lazy or failed).
  for (const record of fresh) if (!stillConnecting(record.status())) host.publishTools(record);
  return { summary: reloadSummary(plan, next.servers), starting };
}
