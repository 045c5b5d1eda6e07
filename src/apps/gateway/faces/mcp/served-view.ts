import type { Bridge, CallOptions, ToolEntry } from "../../../../bridge/api.js";
import { ToolRegistry } from "../../../../registry/registry.js";
import type { ToolSearchOptions } from "../../../../search/tool-search.js";
import { keepUpstream, upstreamOf } from "../../../../util/upstream.js";

const EVERY_TOOL = { include: [], exclude: [] } as const;

/** The served names of one tool list of the bridge, kept while the bridge's list is the same. */
interface Served {
  readonly source: readonly ToolEntry[];
  readonly entries: ToolEntry[];
  readonly byName: ReadonlyMap<string, ToolEntry>;
  /** Served name -> the bridge's name of the same tool. */
  readonly bridgeName: ReadonlyMap<string, string>;
}

/**
 * The bridge with its tools named as `serve` names them, for a bridge that names them otherwise: the
 * daemon's one bridge names its tools for the CLI (`toolNameFormat`, `mcp_<server>_<tool>` by
 * default), while each `attach` session stands where a host had `serve --stdio` and must see what
 * it would have seen there (`<server>_<tool>`, see served-names.ts), not `mcp__bridge__mcp_fs_…`.
 * Names are made by a ToolRegistry of their own, so they follow the bridge's rule exactly (normalized,
 * unique, at most 64 characters); a call by a served name is the same call by the bridge's name.
 * Everything else is the bridge's own, as in code mode's view.
 */
export function servedNamesView(bridge: Bridge, format: string): Bridge {
  let served: Served | undefined;
  const current = (): Served => {
    const source = bridge.tools();
    if (served && sameEntries(served.source, source)) return served;
    served = serve(source, format);
    return served;
  };
  const settings = () => ({ ...bridge.config.settings, toolNameFormat: format, descriptionPrefix: "" });
  const overrides: Partial<Bridge> = {
    tools: (filter?: { server?: string }) =>
      current().entries.filter((entry) => filter?.server === undefined || entry.server === filter.server),
    tool: (name: string) => current().byName.get(name),
    resolve: (name: string) => {
      const entry = current().byName.get(name);
      return entry ? { server: entry.server, tool: entry.tool } : bridge.resolve(name);
    },
    searchTools: (query: string, options?: ToolSearchOptions) => {
      const byBridgeName = new Map([...current().bridgeName].map(([name, original]) => [original, name]));
      return bridge
        .searchTools(query, options)
        .map((entry) => current().byName.get(byBridgeName.get(entry.name) ?? ""))
        .filter((entry): entry is ToolEntry => entry !== undefined);
    },
    call: (name: string, args?: Record<string, unknown>, options?: CallOptions) =>
      bridge.call(current().bridgeName.get(name) ?? name, args, options),
  };
  return new Proxy(bridge, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof Bridge];
      // The served name format is what readers of the settings (a down server's names) must see.
      if (property === "config") return { ...target.config, settings: settings() };
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function serve(source: readonly ToolEntry[], format: string): Served {
  const registry = new ToolRegistry({ toolNameFormat: format, descriptionPrefix: "" });
  const byServer = new Map<string, ToolEntry[]>();
  const own: ToolEntry[] = [];
  for (const entry of source) {
    // The bridge's own tools (resource tools) have no server behind them: they keep their names.
    if (upstreamOf(entry) === undefined) own.push(entry);
    else {
      const entries = byServer.get(entry.server) ?? [];
      byServer.set(entry.server, entries);
      entries.push(entry);
    }
  }
  const original = new Map<string, ToolEntry>();
  for (const [server, entries] of byServer) {
    for (const entry of entries) original.set(`${entry.server}\0${entry.tool}`, entry);
    registry.setServerTools(
      server,
      EVERY_TOOL,
      entries.map((entry) => ({
        name: entry.tool,
        description: entry.description,
        inputSchema: entry.inputSchema,
      })),
    );
  }
  const entries: ToolEntry[] = [...own];
  const bridgeName = new Map<string, string>();
  for (const definition of registry.list()) {
    const entry = original.get(`${definition.server}\0${definition.tool}`);
    if (!entry) continue;
    // The upstream's tool stays reachable from the renamed entry: the gateway forwards it as sent.
    entries.push(keepUpstream({ ...entry, name: definition.name }, upstreamOf(entry)));
    bridgeName.set(definition.name, entry.name);
  }
  return { source, entries, byName: new Map(entries.map((entry) => [entry.name, entry])), bridgeName };
}

function sameEntries(a: readonly ToolEntry[], b: readonly ToolEntry[]): boolean {
  return a.length === b.length && a.every((entry, index) => entry === b[index]);
}
