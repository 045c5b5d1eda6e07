/**
 * What one downstream client may see and call. A tool outside its profile is neither listed nor
 * callable: to that client it does not exist.
 */
export interface GatewayProfile {
  /** Server names this client may use; absent = every server. */
  readonly servers?: readonly string[];
  /** Exposed tool names (`mcp_server_tool`) this client may use; absent = every tool of its servers. */
  readonly tools?: readonly string[];
}

/** Whether a tool of `server` exposed as `name` is visible under `profile`. */
export function profileAllows(profile: GatewayProfile | undefined, server: string, name: string): boolean {
  if (!profile) return true;
  if (profile.servers && !profile.servers.includes(server)) return false;
  if (profile.tools && !profile.tools.includes(name)) return false;
  return true;
}
