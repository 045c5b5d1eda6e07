import { type FSWatcher, watch } from "node:fs";
import { AUTO_RELOAD_DEBOUNCE_MS } from "../config/defaults.js";
import { diffServers } from "../config/diff.js";
import type { ServerDefinition } from "../config/model.js";
import type { Logger } from "../util/logger.js";
import { errorText } from "../util/text-of.js";
import { waitAtMost } from "../util/wait.js";
import type { ReloadSummary } from "./api.js";

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
 * Pure: compares two server lists. The tool filter is applied by the bridge and `trust` read by the
 * host at each call, so changing either needs no restart.
 */
export function planReload(
  previous: readonly ServerDefinition[],
  next: readonly ServerDefinition[],
): ReloadPlan {
  const diff = diffServers(previous, next);
  const withoutFilter = ({ trust: _trust, ...definition }: ServerDefinition): ServerDefinition => ({
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

/** Runs tasks one after another; a failed task does not stop the ones queued after it. */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(task);
    const done = () => {
      this.#pending--;
    };
    this.#tail = result.then(done, done);
    return result;
  }

  /**
   * Waits until the tasks queued now have finished, at most `ms` or until the signal aborts; true when
   * tasks were pending (whether or not they finished in time).
   */
  async settled(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#pending === 0) return false;
    await waitAtMost(this.#tail, ms, signal);
    return true;
  }
}
