import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { Bridge } from "../../../../bridge/api.js";
import { errorText } from "../../../../util/text-of.js";
import { statusAllows, upstreamStatus } from "../../forwarding/upstream-status.js";
import type { GatewayProfile } from "../../identity/profile.js";

/**
 * The gateway's own tools (`serve --admin-tools`): status, reload and restart of the upstream servers,
 * for hosts that offer `/mcp`-style control through their model or UI. Their names carry a prefix of
 * their own; an upstream tool exposed under one of them is hidden while admin tools are on.
 */
export const ADMIN_TOOL_NAMES = {
  status: "mcp_bridge_admin_status",
  reload: "mcp_bridge_admin_reload",
  restart: "mcp_bridge_admin_restart",
} as const;

const NAMES = new Set<string>(Object.values(ADMIN_TOOL_NAMES));

/**
 * Whether a client may see and call the admin tools: they are on, and the client has no profile (stdio,
 * a loopback gateway without auth, a token without a profile) or its profile says `admin: true`.
 */
export function adminAllowed(enabled: boolean | undefined, profile: GatewayProfile | undefined): boolean {
  return enabled === true && (profile === undefined || profile.admin === true);
}

export function isAdminTool(name: string): boolean {
  return NAMES.has(name);
}

export const adminTools: Tool[] = [
  {
    name: ADMIN_TOOL_NAMES.status,
    description:
      "State, tool count, last error, restarts and pid of each upstream MCP server of this gateway (JSON)",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
  {
    name: ADMIN_TOOL_NAMES.reload,
    description:
      "Reads the gateway's config again and applies it: added servers start, removed ones stop, changed ones restart",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  },
  {
    name: ADMIN_TOOL_NAMES.restart,
    description: "Stops one upstream MCP server and starts it again; answers its status once it is connected",
    inputSchema: {
      type: "object",
      properties: { server: { type: "string", description: "The server's name as the status lists it" } },
      required: ["server"],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
];

const json = (value: unknown): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
});
const failed = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/** Runs one admin tool; a failure (unknown server, a restart that fails) is an error result. */
export async function callAdminTool(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    if (name === ADMIN_TOOL_NAMES.status) return json(upstreamStatus(bridge, profile));
    if (name === ADMIN_TOOL_NAMES.reload) return json(await bridge.reload());
    const server = args.server;
    if (typeof server !== "string" || !bridge.server(server) || !statusAllows(bridge, profile, server)) {
      return failed(
        `Unknown server ${JSON.stringify(server)}: give one of the names ${ADMIN_TOOL_NAMES.status} lists`,
      );
    }
    const status = await bridge.restart(server);
    return json(upstreamStatus(bridge, profile).servers.find((s) => s.name === status.name));
  } catch (error) {
    return failed(`Error: ${errorText(error)}`);
  }
}
