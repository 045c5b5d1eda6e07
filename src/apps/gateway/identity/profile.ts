import { reachAllows } from "../../../util/reach.js";

/**
 * What one downstream client may see and call: an allowlist of everything it may reach. Anything
 * outside it is neither listed nor reached upstream, and is answered exactly as what does not exist.
 */
export interface GatewayProfile {
  /** Server names this client may use (tools, resources, templates, prompts, completions); absent = every server. */
  readonly servers?: readonly string[];
  /**
   * Exposed tool names (`mcp_server_tool`) this client may use; absent = every tool of its servers.
   * A profile that lists tools but no servers grants those tools only: no server's resources or prompts.
   */
  readonly tools?: readonly string[];
  /**
   * May use the admin tools (`serve --admin-tools`: status, reload, restart). A client without a
   * profile may; one with a profile only when this is true.
   */
  readonly admin?: boolean;
  /**
   * Serve this client's tool results as the library gives them to a model (see GatewayOptions.llmResults)
   * rather than unchanged. Restricts nothing; like any profile key it makes the admin tools need `admin: true`.
   */
  readonly llmResults?: boolean;
}

/**
 * Whether a tool of `server` exposed as `name` is visible under `profile`. A tool with no server (code
 * mode's) is visible under a profile of servers and acts within it: the profile goes with each call
 * as its `reach` (see util/reach.ts).
 */
export function profileAllows(profile: GatewayProfile | undefined, server: string, name: string): boolean {
  return reachAllows(profile, server, name);
}

/**
 * Whether the resources, templates and prompts of `server` (and completions and subscriptions on them)
 * are visible under `profile`: the servers it names, or every server when it limits nothing.
 */
export function surfaceAllows(profile: GatewayProfile | undefined, server: string): boolean {
  if (!profile) return true;
  if (profile.servers) return profile.servers.includes(server);
  return profile.tools === undefined;
}
