import type { ServerDefinition } from "../../config/model.js";
import type { ServerStatus } from "../../connection/server-status.js";
import { bridgeClosed } from "../../errors/index.js";
import type { BridgeState } from "../bridge-state.js";
import { restartRefusal } from "../diagnostics.js";
import { installServer, isSelected, openServer } from "./server-lifecycle.js";
import type { ServerRecord } from "./server-record.js";

/**
 * `bridge.restart(name)`: stops the server (its process tree is gone before the new one starts) and
 * connects it again on a fresh connection: a new restart budget, auth read afresh from the token
 * store. Calls in flight on the old connection fail; calls made meanwhile wait at the server's gate.
 * Runs in the reload queue; a second restart of the same server while one is under way shares it.
 */
export function restartServer(state: BridgeState, name: string): Promise<ServerStatus> {
  const running = state.restartsUnderWay.get(name);
  if (running) return running;
  const restarting = restartOnce(state, name).finally(() => state.restartsUnderWay.delete(name));
  state.restartsUnderWay.set(name, restarting);
  return restarting;
}

async function restartOnce(state: BridgeState, name: string): Promise<ServerStatus> {
  const refuse = () => {
    const refusal = state.closing
      ? bridgeClosed()
      : restartRefusal(name, state.config.servers, state.config.settings.enabled, (definition) =>
          isSelected(state, definition),
        );
    if (refusal) throw refusal;
  };
  refuse();
  // Calls made from now on wait until the old process tree is gone and the new record is current.
  const swapped = state.restartGates.close(name);
  try {
    const record = await state.reloads.run(async () => {
      refuse(); // a reload may have changed the config meanwhile
      return replaceServer(state, name);
    });
    swapped();
    await record.connect();
    return record.status();
  } finally {
    swapped();
  }
}

/** A restart's swap: a fresh record for the server, current once the old process tree is gone. */
async function replaceServer(state: BridgeState, name: string): Promise<ServerRecord> {
  const definition = state.config.servers.find((d) => d.name === name) as ServerDefinition;
  const fresh = await openServer(state, definition, state.config.settings);
  if (state.closing) {
    await fresh.close();
    throw bridgeClosed();
  }
  const previous = state.servers.get(name);
  if (previous) previous.restarted = true;
  await installServer(state, fresh, { now: true });
  return fresh;
}
