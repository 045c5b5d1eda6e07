import type { Bridge, ToolEntry } from "../bridge/api.js";
import { type CallerReach, reachAllows } from "../util/reach.js";
import { buildApi, type CodeModeApi } from "./declarations.js";

/** What code mode needs from a bridge (a `Bridge` is one). */
export type CodeModeSource = Pick<Bridge, "tools" | "call" | "searchTools"> &
  Partial<Pick<Bridge, "on" | "servers">>;

/** APIs of distinct reaches kept per tool list: a gateway has a handful of profiles, not thousands. */
const MAX_REACHES = 64;

/**
 * The API of the source's current tools within a caller's reach (all of them without one), built once
 * per tool list and reach: kept while `tools()` returns the same entries (the registry publishes new
 * entry objects when a list changes) and dropped on `toolsChanged`. A 203-tool catalog is built in
 * milliseconds, but a model may search and describe many times per turn.
 */
export function apiCache(source: CodeModeSource): (reach?: CallerReach) => CodeModeApi {
  let cached: { entries: readonly ToolEntry[]; byReach: Map<string, CodeModeApi> } | undefined;
  source.on?.("toolsChanged", () => {
    cached = undefined;
  });
  return (reach) => {
    const entries = source.tools();
    if (!cached || !sameEntries(cached.entries, entries)) cached = { entries, byReach: new Map() };
    const key = reach ? JSON.stringify([reach.servers ?? null, reach.tools ?? null]) : "";
    let api = cached.byReach.get(key);
    if (!api) {
      if (cached.byReach.size >= MAX_REACHES) cached.byReach.clear();
      api = buildApi(reach ? entries.filter((e) => reachAllows(reach, e.server, e.name)) : entries);
      cached.byReach.set(key, api);
    }
    return api;
  };
}

function sameEntries(a: readonly ToolEntry[], b: readonly ToolEntry[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}
