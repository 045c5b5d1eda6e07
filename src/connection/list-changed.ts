import type { Client } from "@modelcontextprotocol/client";

/** The lists beyond tools whose changes the bridge follows (tools are the connection's own). */
export type ListKind = "prompts" | "resources";

const MethodOf: Record<ListKind, string> = {
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed",
};

const hooks = new WeakMap<Client, Partial<Record<ListKind, () => void>>>();

/** The SDK client options that route prompts and resources `list_changed` to `followListChanges` hooks. */
export function listChangedOptions(client: () => Client) {
  const option = (kind: ListKind) => ({
    autoRefresh: false,
    onChanged: () => hooks.get(client())?.[kind]?.(),
  });
  return { prompts: option("prompts"), resources: option("resources") };
}

/**
 * Runs `hook` on each `list_changed` of that list from this client's server. In the 2026-07-28
 * protocol a server sends list changes only on a `subscriptions/listen` stream that asked for them,
 * and the SDK opens that stream for the lists configured through `ClientOptions.listChanged` (hence
 * `listChangedOptions`); its handler replaces any set before connecting. The plain notification
 * handler stays for servers that send list changes without declaring `listChanged`.
 */
export function followListChanges(client: Client, kind: ListKind, hook: () => void): void {
  hooks.set(client, { ...hooks.get(client), [kind]: hook });
  client.setNotificationHandler(MethodOf[kind] as "notifications/prompts/list_changed", hook);
}
