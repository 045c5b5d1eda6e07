import type { ServerDefinition } from "./model.js";

export interface ServerDiff {
  readonly added: ServerDefinition[];
  readonly removed: ServerDefinition[];
  readonly changed: ServerDefinition[];
  readonly unchanged: ServerDefinition[];
}

/** What `reload()` must do: servers whose definition is unchanged keep their connection and process. */
export function diffServers(
  previous: readonly ServerDefinition[],
  next: readonly ServerDefinition[],
): ServerDiff {
  const before = new Map(previous.map((server) => [server.name, server]));
  const after = new Set(next.map((server) => server.name));
  const diff: ServerDiff = { added: [], removed: [], changed: [], unchanged: [] };
  for (const server of next) {
    const old = before.get(server.name);
    if (!old) diff.added.push(server);
    else if (fingerprint(old) === fingerprint(server)) diff.unchanged.push(server);
    else diff.changed.push(server);
  }
  for (const server of previous) if (!after.has(server.name)) diff.removed.push(server);
  return diff;
}

function fingerprint(server: ServerDefinition): string {
  const { source: _source, ...rest } = server;
  return stableStringify(rest);
}

/** A number per function seen, so a server given in code with another `connect` counts as changed. */
const functionIds = new WeakMap<object, number>();
let functionsSeen = 0;

function stableStringify(value: unknown): string {
  if (typeof value === "function") {
    let id = functionIds.get(value);
    if (id === undefined) {
      id = ++functionsSeen;
      functionIds.set(value, id);
    }
    return `function#${id}`;
  }
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
