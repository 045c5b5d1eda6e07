import type { ServerStatus } from "../../connection/server-status.js";
import type { BridgeState } from "../bridge-state.js";
import { isSelected } from "./selection.js";

/**
 * The info lines a host shows with `-v` (`serve -v`): one per server as it connects, with its tool
 * count, and once every server started at start has settled, a total. Settled means no selected
 * server is still connecting (connected, failed, lazy or disabled), so a host can tell at a glance
 * whether its servers all came up.
 */

/** One line per connect (reconnects too: a server that came back is worth a line). */
export function reportConnected(state: BridgeState, status: ServerStatus): void {
  if (status.state !== "connected") return;
  const ms = status.connectMs === undefined ? "" : ` in ${status.connectMs} ms`;
  state.logger.info(`Server "${status.name}" connected with ${status.toolCount} tools${ms}`, {
    server: status.name,
    tools: status.toolCount,
  });
  reportStartup(state);
}

/** The total, once, after `startAll` began and no selected server is still connecting. */
export function reportStartup(state: BridgeState): void {
  const { startup } = state;
  if (!startup.begun || startup.reported) return;
  const statuses: ServerStatus[] = [];
  for (const definition of state.config.servers) {
    if (!isSelected(state, definition)) continue;
    const record = state.servers.get(definition.name);
    if (record) statuses.push(record.status());
  }
  if (statuses.some((status) => status.state === "connecting")) return;
  startup.reported = true;
  const connected = statuses.filter((status) => status.state === "connected").length;
  const tools = state.tools.list(undefined).length;
  state.logger.info(`${connected} of ${statuses.length} servers connected, ${tools} tools in all`, {
    servers: statuses.length,
    connected,
    tools,
  });
}
