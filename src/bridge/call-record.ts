import type { ToolDefinition } from "../registry/tool-definition.js";
import type { BridgeState } from "./bridge-state.js";

/**
 * Counts a call in the stats and logs it at debug: server, tool, duration and outcome only, never the
 * arguments or the result (either may carry secrets the mask does not know).
 */
export function recordCall(
  state: BridgeState,
  definition: ToolDefinition,
  ms: number,
  outcome: "ok" | "error" | "timeout",
): void {
  state.stats.record(definition.server, definition.name, ms, outcome);
  const durationMs = Math.round(ms);
  state.logger.debug(`Call ${definition.server}/${definition.tool}: ${outcome} in ${durationMs} ms`, {
    server: definition.server,
    tool: definition.tool,
    durationMs,
    outcome,
  });
}
