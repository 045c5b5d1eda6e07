import { type FSWatcher, watch } from "node:fs";
import { AUTO_RELOAD_DEBOUNCE_MS } from "../config/defaults.js";
import { diffServers } from "../config/diff.js";
import { loadConfig } from "../config/load.js";
import type { ServerDefinition } from "../config/model.js";
import { secretsOf } from "../config/secrets.js";
import { bridgeClosed } from "../errors/index.js";
import type { Logger } from "../util/logger.js";
import { errorText } from "../util/text-of.js";
import type { ReloadSummary } from "./api.js";
import type { BridgeState } from "./bridge-state.js";
import { screenInstalledServers } from "./installed-servers.js";
import { installServer, isSelected, openServer, publishTools } from "./servers/server-lifecycle.js";
import { stillConnecting } from "./servers/server-record.js";

/**
 * `bridge.reload()`: reloads run one after another, so two never replace the same server twice. The
 * queue covers only the change itself (load, auth setup, swap); waiting for new servers to connect
 * happens outside it.
 */
export async function reload(state: BridgeState): Promise<ReloadSummary> {
  if (state.closing) throw bridgeClosed();
  const { summary, starting } = await state.reloads.run(() => applyReload(state));
  if (state.options.wait) await starting;
  return summary;
}

/**
 * One reload: loads the config again, opens the servers it adds or changes, then swaps everything in
 * at once (no await between the swap's steps, so calls and events see the old or the new state, never
 * a mix). Resolves with the summary and the new servers' start, which the caller may wait for.
 */
async function applyReload(
  state: BridgeState,
): Promise<{ summary: ReloadSummary; starting: Promise<unknown> }> {
  if (state.closing) throw bridgeClosed();
  const next = screenInstalledServers(await loadConfig(state.options.load), state.options.env);
  state.options.secrets.add(next.servers.flatMap(secretsOf));
  const plan = planReload(state.config.servers, next.servers);
  const fresh = await Promise.all(
    [...plan.restarted, ...plan.added]
      .filter((definition) => isSelected(state, definition))
      .map((definition) => openServer(state, definition, next.settings)),
  );
  if (state.closing) {
    await Promise.all(fresh.map((record) => record.close()));
    throw bridgeClosed();
  }
  // From here on nothing awaits: the swap is atomic for calls and events.
  for (const warning of next.warnings) state.logger.warn(warning.message, { ...warning });
  const settingsChanged = JSON.stringify(next.settings) !== JSON.stringify(state.config.settings);
  state.config = next;
  for (const definition of [...plan.refiltered, ...plan.unchanged]) {
    const record = state.servers.get(definition.name);
    if (record) record.definition = definition;
  }
  if (settingsChanged) {
    // Everything derived from the settings (names, surface caches) is rebuilt.
    state.tools.renew(next);
    state.features.settingsChanged();
    for (const record of state.servers.records()) publishTools(state, record);
  } else {
    state.tools.registry.declareServers(next.servers.map((server) => server.name));
    for (const definition of plan.refiltered) {
      const record = state.servers.get(definition.name);
      if (record) publishTools(state, record);
    }
  }
  for (const definition of plan.removed) {
    state.servers.delete(definition.name);
    const removed = state.tools.remove(definition.name);
    state.events.emit("toolsChanged", { server: definition.name, tools: [], removed });
  }
  // A replaced server's last tools stay listed until its new connection lists its own, so a call
  // made meanwhile finds the new record and waits for it instead of failing with TOOL_NOT_FOUND.
  // The old process runs until its calls in flight have ended.
  for (const record of fresh) void installServer(state, record);
  const starting = Promise.all(fresh.map((record) => record.start()));
  // Old tools are kept only for a replacement that is connecting now (not disabled, lazy or failed).
  for (const record of fresh) if (!stillConnecting(record.status())) publishTools(state, record);
  return { summary: reloadSummary(plan, next.servers), starting };
}

/** What a reload does to each server. */
export interface ReloadPlan {
  readonly added: readonly ServerDefinition[];
  readonly removed: readonly ServerDefinition[];
  /** Definitions that changed in a way the running process depends on: a new connection replaces it. */
  readonly restarted: readonly ServerDefinition[];
  /** Only the tool filter or `trust` changed: the process keeps running (its tools are filtered again). */
  readonly refiltered: readonly ServerDefinition[];
  readonly unchanged: readonly ServerDefinition[];
}

const NO_FILTER = { include: [], exclude: [] } as const;

/**
 * Pure: compares two server lists. The tool filter is applied by the bridge, and `trust` and
 * `retryCrashedCalls` are read at each call and `tags` only when servers are selected, so changing
 * any of them needs no restart.
 */
export function planReload(
  previous: readonly ServerDefinition[],
  next: readonly ServerDefinition[],
): ReloadPlan {
  const diff = diffServers(previous, next);
  const withoutFilter = ({
    trust: _trust,
    tags: _tags,
    retryCrashedCalls: _retry,
    ...definition
  }: ServerDefinition): ServerDefinition => ({
    ...definition,
    tools: NO_FILTER,
  });
  const sameProcess = new Set(
    diffServers(previous.map(withoutFilter), next.map(withoutFilter)).unchanged.map((d) => d.name),
  );
  return {
    added: diff.added,
    removed: diff.removed,
    restarted: diff.changed.filter((definition) => !sameProcess.has(definition.name)),
    refiltered: diff.changed.filter((definition) => sameProcess.has(definition.name)),
    unchanged: diff.unchanged,
  };
}

/** The names in a plan, as `reload()` reports them; kept servers (unchanged or re-filtered) in config order. */
export function reloadSummary(plan: ReloadPlan, next: readonly ServerDefinition[]): ReloadSummary {
  const kept = new Set([...plan.refiltered, ...plan.unchanged].map((d) => d.name));
  return {
    added: plan.added.map((d) => d.name),
    removed: plan.removed.map((d) => d.name),
    restarted: plan.restarted.map((d) => d.name),
    unchanged: next.filter((d) => kept.has(d.name)).map((d) => d.name),
  };
}

/**
 * Watches the config file and calls `reload` once the file has been quiet for a moment (editors write
 * in several steps). Reloads themselves are serialized by the bridge. Returns a stop function.
 */
export function watchConfigFile(file: string, reload: () => Promise<unknown>, logger: Logger): () => void {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(file, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        reload().catch((error: unknown) =>
          logger.error("Reloading the config failed; keeping the running servers", {
            error: errorText(error),
          }),
        );
      }, AUTO_RELOAD_DEBOUNCE_MS);
      timer.unref();
    });
    watcher.unref();
  } catch (error) {
    logger.warn(`Cannot watch ${file} for changes; autoReload is off`, { error: errorText(error) });
    return () => {};
  }
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
