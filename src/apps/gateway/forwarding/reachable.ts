import type { Bridge } from "../../../bridge/api.js";
import type { PromptEntry } from "../../../bridge/features/prompts.js";
import {
  type ResourceEntry,
  type ResourceTemplateEntry,
  templateMatches,
} from "../../../bridge/features/resources.js";
import { type GatewayProfile, profileAllows, surfaceAllows } from "../identity/profile.js";
import { notReachable, resourceAmbiguous } from "../wire-errors.js";
import { uiResourceOwners } from "./forwarded-tool.js";

/**
 * What a profile lets a client reach beyond tools, decided before any upstream request: lists ask only
 * the servers the profile names, and a resource, template or prompt of another server is answered with
 * the same error, word for word, as one that does not exist (never with that server's own error text).
 */

/**
 * One of the bridge's surface lists, from the servers the profile lets the client reach only. A
 * profile naming servers lists each of them (a server outside it is not asked); one naming none lists
 * all of them, or (tools only) nothing.
 */
async function listReachable<T extends { readonly server: string }>(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  list: (options?: { server: string }) => Promise<T[]>,
): Promise<T[]> {
  if (!profile?.servers) return surfaceAllows(profile, "") ? list() : [];
  const named = new Set(profile.servers);
  const connected = bridge.servers().filter((s) => s.state === "connected" && named.has(s.name));
  // As the bridge's own list does for all servers: one failing server lists nothing, the others list.
  const lists = await Promise.all(connected.map(({ name }) => list({ server: name }).catch(() => [] as T[])));
  return lists.flat().filter((entry) => surfaceAllows(profile, entry.server));
}

export const reachableResources = (bridge: Bridge, profile: GatewayProfile | undefined) =>
  listReachable<ResourceEntry>(bridge, profile, (options) => bridge.resources(options));

export const reachableTemplates = (bridge: Bridge, profile: GatewayProfile | undefined) =>
  listReachable<ResourceTemplateEntry>(bridge, profile, (options) => bridge.resourceTemplates(options));

export const reachablePrompts = (bridge: Bridge, profile: GatewayProfile | undefined) =>
  listReachable<PromptEntry>(bridge, profile, (options) => bridge.prompts(options));

/**
 * The reachable servers that could serve `uri`: those listing it, else those with a template matching
 * it, else those whose visible tools point at it (`_meta.ui.resourceUri`). Servers the client cannot
 * reach are never among them.
 */
export async function resourceOwners(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  uri: string,
): Promise<string[]> {
  let owners = [
    ...new Set((await reachableResources(bridge, profile)).filter((r) => r.uri === uri).map((r) => r.server)),
  ];
  if (owners.length === 0) {
    const templates = await reachableTemplates(bridge, profile);
    owners = [...new Set(templates.filter((t) => templateMatches(t.uriTemplate, uri)).map((t) => t.server))];
  }
  if (owners.length === 0) {
    owners = uiResourceOwners(
      bridge.tools().filter((t) => profileAllows(profile, t.server, t.name)),
      uri,
    );
  }
  return owners;
}

/**
 * The server a client's `resources/read` or `resources/subscribe` of `uri` goes to. None, and the
 * client is told the resource does not exist; several, and it is told which (none it cannot reach).
 */
export async function resourceOwner(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  uri: string,
): Promise<string> {
  const owners = await resourceOwners(bridge, profile, uri);
  const [owner, ...others] = owners;
  if (owner === undefined) throw notReachable.resource(uri);
  if (others.length > 0) throw resourceAmbiguous({ uri, servers: owners });
  return owner;
}

/** The prompt exposed as `name`, if the client can reach it. */
export async function reachablePrompt(
  bridge: Bridge,
  profile: GatewayProfile | undefined,
  name: string,
): Promise<PromptEntry> {
  const entry = (await reachablePrompts(bridge, profile)).find((p) => p.name === name);
  if (!entry) throw notReachable.prompt(name);
  return entry;
}
