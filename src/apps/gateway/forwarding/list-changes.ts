import type { Bridge } from "../../../bridge/api.js";

/** Which of the gateway's listings changed. */
export interface ListChanges {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
}

/**
 * How long changes are gathered into one round of `list_changed` notifications. The gateway serves at
 * once while its upstream servers connect (see serve-command.ts), so twenty servers coming up in the
 * first seconds would otherwise be twenty rounds to every client, each followed by a listing.
 */
export const LIST_CHANGES_COALESCE_MS = 150;

/**
 * Calls `notify` with what changed, at most once per LIST_CHANGES_COALESCE_MS: a server's tools
 * (listed, cached list replaced, dropped on failure), an upstream `list_changed` of resources or
 * prompts, and a server coming up or going down (its resources and prompts appear or vanish, which
 * no upstream notification says). Returns the function that stops listening.
 */
export function onListChanges(bridge: Bridge, notify: (changes: ListChanges) => void): () => void {
  let pending = { tools: false, resources: false, prompts: false };
  let timer: NodeJS.Timeout | undefined;
  const mark = (changed: Partial<ListChanges>) => {
    pending = {
      tools: pending.tools || changed.tools === true,
      resources: pending.resources || changed.resources === true,
      prompts: pending.prompts || changed.prompts === true,
    };
    timer ??= setTimeout(() => {
      timer = undefined;
      const changes = pending;
      pending = { tools: false, resources: false, prompts: false };
      notify(changes);
    }, LIST_CHANGES_COALESCE_MS);
    timer.unref?.();
  };
  // The last state seen per server, from the moment the gateway starts listening.
  const last = new Map<string, string>(bridge.servers().map((s) => [s.name, s.state]));
  const off = [
    bridge.on("toolsChanged", () => mark({ tools: true })),
    bridge.on("resourcesChanged", () => mark({ resources: true })),
    bridge.on("promptsChanged", () => mark({ prompts: true })),
    bridge.on("serverStateChanged", (status) => {
      // Only a connected server's resources and prompts are listed: news when it comes up or goes down.
      const wasUp = last.get(status.name) === "connected";
      const isUp = status.state === "connected";
      last.set(status.name, status.state);
      if (wasUp !== isUp) mark({ resources: true, prompts: true });
    }),
  ];
  return () => {
    clearTimeout(timer);
    timer = undefined;
    for (const stop of off) stop();
  };
}
