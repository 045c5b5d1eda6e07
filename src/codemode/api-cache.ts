import type { Bridge, ToolEntry } from "../bridge/api.js";
import { buildApi, type CodeModeApi } from "./declarations.js";

/** What code mode needs from a bridge (a `Bridge` is one). */
export type CodeModeSource = Pick<Bridge, "tools" | "call" | "searchTools"> &
  Partial<Pick<Bridge, "on" | "servers">>;

/**
 * The API of the source's current tools, built once per tool list: kept while `tools()` returns the
 * same entries (the registry publishes new entry objects when a list changes) and dropped on
 * `toolsChanged`. A 203-tool catalog is built in milliseconds, but a model may search and describe
 * many times per turn.
 */
export function apiCache(source: CodeModeSource): () => CodeModeApi {
  let cached: { entries: readonly ToolEntry[]; api: CodeModeApi } | undefined;
  source.on?.("toolsChanged", () => {
    cached = undefined;
  });
  return () => {
    const entries = source.tools();
    if (cached && sameEntries(cached.entries, entries)) return cached.api;
    cached = { entries, api: buildApi(entries) };
    return cached.api;
  };
}

function sameEntries(a: readonly ToolEntry[], b: readonly ToolEntry[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}
