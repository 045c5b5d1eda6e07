import { flattenParameters } from "../registry/flatten.js";
import type { ToolDefinition } from "../registry/tool-definition.js";
import { keepUpstream, upstreamOf } from "../util/upstream.js";
import type { ToolEntry } from "./api.js";
import type { BridgeState } from "./bridge-state.js";
import { callTool } from "./calls.js";

/**
 * The callable `ToolEntry` of a tool definition, made once per definition and kept in the state's
 * `entries` (a WeakMap, so a definition a reload dropped takes its entry with it).
 */
export function toolEntry(state: BridgeState, definition: ToolDefinition): ToolEntry {
  let entry = state.entries.get(definition);
  if (!entry) {
    let flat: ReturnType<typeof flattenParameters> | undefined;
    // Copied key by key, not spread: V8 gave each spread copy a hidden class of its own (2,000 tools,
    // 2,000 maps and descriptor arrays, ~0.7 MiB); stores in one order share one.
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(definition)) copy[key] = definition[key as keyof ToolDefinition];
    copy.call = (args = {}, options = {}) => callTool(state, definition.name, args, options);
    copy.flatParameters = () => {
      flat ??= flattenParameters(definition.inputSchema);
      return flat;
    };
    entry = copy as unknown as ToolEntry;
    keepUpstream(entry, upstreamOf(definition));
    state.entries.set(definition, entry);
  }
  return entry;
}
