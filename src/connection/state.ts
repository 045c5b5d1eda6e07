import type { ServerState } from "./status.js";

/** Allowed state transitions of one server connection; anything else is a bug. */
const transitions: Readonly<Record<ServerState, readonly ServerState[]>> = {
  disabled: ["closed"],
  idle: ["connecting", "closed"],
  connecting: ["connected", "failed", "closed"],
  connected: ["reconnecting", "idle", "failed", "closed"],
  reconnecting: ["connected", "reconnecting", "failed", "closed"],
  failed: ["connecting", "closed"],
  closed: [],
  // A config entry that could not be loaded never gets a connection, so it never changes state.
  invalid: [],
};

export function canTransition(from: ServerState, to: ServerState): boolean {
  return transitions[from].includes(to);
}

/** States in which the server's last known tools are still offered to the LLM. */
export function keepsTools(state: ServerState): boolean {
  return state === "connected" || state === "reconnecting" || state === "idle";
}
