/**
 * What one caller may reach: the servers and the tools (by the names it is served) of its profile,
 * as plain data. A gateway passes its client's profile with every call (`CallOptions.reach`), so a
 * tool that makes calls of its own on the caller's behalf (code mode's `execute_code`) reaches no
 * more than the caller could directly.
 */
export interface CallerReach {
  /** Server names; absent = every server. */
  readonly servers?: readonly string[];
  /** Tool names; absent = every tool of the servers it may reach. */
  readonly tools?: readonly string[];
}

/**
 * Whether a tool of `server` named `name` is within `reach` (undefined: everything is). A tool with no
 * server behind it (`server` is `""`: code mode's `search_tools`, `describe_tools`, `execute_code`)
 * is within every list of servers, since it acts within the caller's reach; only a list of tools may
 * leave it out.
 */
export function reachAllows(reach: CallerReach | undefined, server: string, name: string): boolean {
  if (!reach) return true;
  if (server !== "" && reach.servers && !reach.servers.includes(server)) return false;
  if (reach.tools && !reach.tools.includes(name)) return false;
  return true;
}
