import type { Bridge } from "../../../bridge/api.js";
import { definedOnly } from "../../../util/defined.js";
import { type GatewayProfile, surfaceAllows } from "../identity/profile.js";

type ServerStatus = ReturnType<Bridge["servers"]>[number];

/** The gateway's own resource: the state of every upstream server this client may see. */
export const STATUS_URI = "mcp-bridge://status";

/** How long status changes are gathered into one `resources/updated` (a reconnect is several changes). */
const COALESCE_MS = 100;

/** One upstream server as a host reads it: enough to show it and to say why it is down. */
export interface UpstreamStatus {
  readonly name: string;
  readonly state: ServerStatus["state"];
  readonly transport: ServerStatus["transport"];
  readonly toolCount: number;
  readonly restarts: number;
  readonly pid?: number;
  readonly protocolVersion?: string;
  /** Redacted by the bridge (secrets masked, including in the server's stderr lines it quotes). */
  readonly lastError?: { readonly code: string; readonly message: string };
}

/**
 * Whether a client under `profile` sees `server` in the status: the servers whose tools or surface it
 * may reach. A profile that names no servers shows the servers of the tools it lists.
 */
export function statusAllows(bridge: Bridge, profile: GatewayProfile | undefined, server: string): boolean {
  if (surfaceAllows(profile, server)) return true;
  if (profile?.servers && !profile.servers.includes(server)) return false;
  const tools = profile?.tools ?? [];
  return bridge.tools({ server }).some((t) => tools.includes(t.name));
}

/** The status document (JSON) of the upstream servers `profile` lets its client see. */
export function upstreamStatus(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
): { servers: UpstreamStatus[] } {
  return {
    servers: bridge
      .servers()
      .filter((s) => statusAllows(bridge, profile, s.name))
      .map(
        (s) =>
          definedOnly({
            name: s.name,
            state: s.state,
            transport: s.transport,
            toolCount: s.toolCount,
            restarts: s.restarts,
            pid: s.pid,
            protocolVersion: s.protocolVersion,
            lastError: s.lastError && { code: s.lastError.code, message: s.lastError.message },
          }) as UpstreamStatus,
      ),
  };
}

/** The status resource as `resources/list` lists it. */
export const statusResource = {
  uri: STATUS_URI,
  name: "mcp-bridge-status",
  title: "Upstream servers",
  description: "State, tool count, last error, restarts and pid of each upstream server of this gateway",
  mimeType: "application/json",
};

/** `resources/read` of the status resource. */
export function readStatus(bridge: Bridge, profile: GatewayProfile | undefined) {
  return {
    contents: [
      {
        uri: STATUS_URI,
        mimeType: "application/json",
        text: JSON.stringify(upstreamStatus(bridge, profile), null, 2),
      },
    ],
  };
}

/**
 * Calls `onChange` once after a burst of server state or tool changes (coalesced over COALESCE_MS);
 * returns the function that stops listening.
 */
export function onStatusChange(bridge: Bridge, onChange: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      onChange();
    }, COALESCE_MS);
    timer.unref?.();
  };
  const off = [bridge.on("serverStateChanged", changed), bridge.on("toolsChanged", changed)];
  return () => {
    clearTimeout(timer);
    for (const stop of off) stop();
  };
}
