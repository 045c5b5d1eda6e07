import type { Tool } from "@modelcontextprotocol/client";
import type { ToolFilter } from "../config/model.js";
import { omitUndefined } from "../util/defined.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { keepUpstream } from "../util/upstream.js";
import { boundedSchema, cutDescription } from "./description-limits.js";
import { matchesToolFilter } from "./filter.js";
import { baseToolName, MAX_TOOL_NAME_LENGTH, NAME_HASH_LENGTH, suffixedName } from "./naming.js";
import { type ServerCallSupport, type SkippedTool, unsupportedReason } from "./support.js";
import type { JsonSchema, ToolDefinition, ToolFilterCallback } from "./tool-definition.js";

export interface ToolRegistryOptions {
  readonly toolNameFormat: string;
  readonly descriptionPrefix: string;
  /** The host's own tool names; an MCP tool that would take one is skipped with a warning. */
  readonly reservedNames?: readonly string[];
  readonly filter?: ToolFilterCallback;
  readonly logger?: Logger;
}

interface Candidate {
  readonly server: string;
  readonly tool: Tool;
  readonly base: string;
  /** `server\0tool`: the identity of a tool, and the tie-break order when hashes clash. */
  readonly key: string;
}

/**
 * All tools of all servers under exposed names, as pure data: no I/O, no connection.
 *
 * Naming rule (deterministic: it depends only on the set of tools registered, never on the order in
 * which servers came up or were set):
 * 1. Each tool has a base name: the format with server and tool parts normalized.
 * 2. A tool whose base name is one of the host's reserved names is skipped with a warning; it is never
 *    renamed around the host's tool.
 * 3. A base name held by exactly one tool and at most 64 characters long is used as is.
 * 4. Every other tool (its base is shared with another tool, or too long) gets `_<hash>`: 6 hex digits
 *    of sha256(original server + "\0" + original tool), the base cut to fit 64 characters. In the
 *    astronomically rare case that such a name is already taken (by a plain name, a reserved name or an
 *    earlier suffixed one in `server\0tool` order), the hash grows by two digits until it is free.
 *
 * Names map back to the original server and tool through a table, never by splitting on `_`.
 */
export class ToolRegistry {
  readonly #options: ToolRegistryOptions;
  readonly #logger: Logger;
  readonly #reserved: ReadonlySet<string>;
  /** Per server, in the order servers were first seen, the accepted tools in server order. */
  readonly #servers = new Map<string, Candidate[]>();
  /** Per server, well-formed tools kept out of every export because the bridge cannot call them. */
  readonly #skipped = new Map<string, SkippedTool[]>();
  /** Per base name, the tools that have it (by key): a base held by one tool alone is used as is. */
  readonly #holders = new Map<string, Map<string, Candidate>>();
  readonly #byName = new Map<string, ToolDefinition>();
  /** By `server\0tool`. */
  readonly #byOriginal = new Map<string, ToolDefinition>();
  /** Per server, its definitions in its order; dropped when one of them changes, made again when read. */
  readonly #perServer = new Map<string, ToolDefinition[]>();
  /** Every definition in list order; dropped on any change, made again when read. */
  #list: ToolDefinition[] | undefined;
  /**
   * Whether a hash had to grow to break a clash. A grown name depends on the whole table (rule 4's
   * order), so while one exists every update renames from scratch; otherwise an update renames only
   * the tools that share a base name with a tool that changed.
   */
  #grown = false;
  /** The raw tool each definition was made from. */
  readonly #sources = new WeakMap<ToolDefinition, Tool>();

  constructor(options: ToolRegistryOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#reserved = new Set(options.reservedNames ?? []);
  }

  /**
   * Replaces a server's tools. Malformed entries (no string name, an inputSchema that is not an
   * object, a name listed twice) and tools named like one of the host's own are skipped with a warning
   * naming server and tool; the rest are kept. The warnings are also logged.
   */
  setServerTools(
    server: string,
    toolFilter: ToolFilter,
    tools: readonly unknown[],
    /** What the server supports; without it, every call form is assumed possible. */
    support: ServerCallSupport = { toolTasks: true },
  ): { definitions: ToolDefinition[]; warnings: string[] } {
    const warnings: string[] = [];
    const accepted: Candidate[] = [];
    const skipped: SkippedTool[] = [];
    const seen = new Set<string>();
    for (const [index, raw] of tools.entries()) {
      const problem = toolProblem(raw);
      if (problem) {
        const name = (raw as { name?: unknown } | null)?.name;
        const label = typeof name === "string" && name.length > 0 ? `"${name}"` : `#${index}`;
        warnings.push(`Server "${server}": skipped tool ${label}: ${problem}.`);
        continue;
      }
      const tool = raw as Tool;
      if (seen.has(tool.name)) {
        warnings.push(
          `Server "${server}": skipped duplicate tool "${tool.name}" (the server lists it twice).`,
        );
        continue;
      }
      seen.add(tool.name);
      if (!matchesToolFilter(toolFilter, tool.name)) continue;
      if (this.#options.filter && !this.#options.filter({ server, tool: tool.name, definition: tool }))
        continue;
      const unsupported = unsupportedReason(tool, support);
      if (unsupported) {
        skipped.push({ tool: tool.name, reason: unsupported });
        warnings.push(`Server "${server}": skipped tool "${tool.name}": ${unsupported}.`);
        continue;
      }
      const base = baseToolName(this.#options.toolNameFormat, server, tool.name);
      if (this.#reserved.has(base)) {
        warnings.push(
          `Server "${server}": skipped tool "${tool.name}": its name "${base}" is one of the host's own tools. ` +
            "Change toolNameFormat or exclude the tool to silence this.",
        );
        continue;
      }
      accepted.push({ server, tool, base, key: `${server}\0${tool.name}` });
    }
    const previous = this.#servers.get(server) ?? [];
    this.#servers.set(server, accepted);
    this.#skipped.set(server, skipped);
    for (const warning of warnings) this.#logger.warn(warning, { server });
    this.#replace(server, previous, accepted);
    return { definitions: this.forServer(server), warnings };
  }

  /** Fixes the order in which servers' tools are listed (the config's order), whatever order they connect in. */
  declareServers(servers: readonly string[]): void {
    for (const server of servers) if (!this.#servers.has(server)) this.#servers.set(server, []);
  }

  /** The server's tools that pass its filter but are not exported because the bridge cannot call them. */
  skipped(server: string): readonly SkippedTool[] {
    return this.#skipped.get(server) ?? [];
  }

  removeServer(server: string): void {
    this.#skipped.delete(server);
    const previous = this.#servers.get(server) ?? [];
    // Keep the server's place in the order; it may come back.
    if (this.#servers.has(server)) this.#servers.set(server, []);
    if (previous.length > 0) this.#replace(server, previous, []);
  }

  /** Every tool: servers in declared (else first-seen) order, each server's tools in its own order. */
  list(): ToolDefinition[] {
    if (!this.#list) this.#list = [...this.#servers.keys()].flatMap((server) => this.forServer(server));
    return this.#list;
  }

  get(exposedName: string): ToolDefinition | undefined {
    return this.#byName.get(exposedName);
  }

  forServer(server: string): ToolDefinition[] {
    const candidates = this.#servers.get(server);
    if (!candidates) return [];
    let definitions = this.#perServer.get(server);
    if (!definitions) {
      definitions = candidates.map((candidate) => this.#byOriginal.get(candidate.key) as ToolDefinition);
      this.#perServer.set(server, definitions);
    }
    return definitions;
  }

  /**
   * An exposed name, or `server/tool` with the original names. Either may contain `/`, so every split
   * is tried, the shortest server name first.
   */
  resolve(name: string): ToolDefinition | undefined {
    const exact = this.#byName.get(name);
    if (exact) return exact;
    for (let index = name.indexOf("/"); index !== -1; index = name.indexOf("/", index + 1)) {
      const found = this.#byOriginal.get(`${name.slice(0, index)}\0${name.slice(index + 1)}`);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * A server's tools went from `previous` to `next`: renames only the tools whose base name is one of
   * theirs (plain when held alone, suffixed when shared), so a server connecting costs its own tools
   * and those it collides with, not the whole table. When a new name would clash with a name already
   * taken (rule 4's rare case), the whole table is renamed instead: the result is always the one a
   * single build over the same tools gives.
   */
  #replace(server: string, previous: readonly Candidate[], next: readonly Candidate[]): void {
    for (const candidate of previous) {
      const holders = this.#holders.get(candidate.base);
      holders?.delete(candidate.key);
      if (holders?.size === 0) this.#holders.delete(candidate.base);
    }
    for (const candidate of next) {
      const holders = this.#holders.get(candidate.base) ?? new Map<string, Candidate>();
      this.#holders.set(candidate.base, holders);
      holders.set(candidate.key, candidate);
    }
    const wanted = this.#grown ? undefined : this.#renames(previous, next);
    if (!wanted) {
      this.#rebuild();
      return;
    }
    const old = new Map<string, ToolDefinition>();
    const take = (key: string) => {
      const definition = this.#byOriginal.get(key);
      if (!definition) return;
      old.set(key, definition);
      this.#byOriginal.delete(key);
      if (this.#byName.get(definition.name) === definition) this.#byName.delete(definition.name);
    };
    for (const candidate of previous) take(candidate.key);
    for (const key of wanted.keys()) take(key);
    const touched = new Set([server]);
    for (const [key, { candidate, name }] of wanted) {
      const definition = this.#place(name, candidate, old.get(key));
      this.#byName.set(name, definition);
      this.#byOriginal.set(key, definition);
      if (definition !== old.get(key)) touched.add(candidate.server);
    }
    for (const name of touched) this.#perServer.delete(name);
    this.#list = undefined;
  }

  /**
   * The names the tools sharing a base name with a changed tool take now, or undefined when one of
   * them would clash with a name already taken.
   */
  #renames(
    previous: readonly Candidate[],
    next: readonly Candidate[],
  ): Map<string, { candidate: Candidate; name: string }> | undefined {
    const wanted = new Map<string, { candidate: Candidate; name: string }>();
    for (const base of new Set([...previous, ...next].map((candidate) => candidate.base))) {
      const holders = this.#holders.get(base);
      if (!holders) continue;
      const plain = holders.size === 1 && base.length <= MAX_TOOL_NAME_LENGTH;
      for (const candidate of holders.values())
        wanted.set(candidate.key, {
          candidate,
          name: plain ? base : this.#suffixed(candidate, NAME_HASH_LENGTH),
        });
    }
    // Names given up: every tool the server had, and the other tools that are renamed.
    const released = new Set<string>();
    for (const candidate of previous) {
      const definition = this.#byOriginal.get(candidate.key);
      if (definition) released.add(definition.name);
    }
    for (const [key, { name }] of wanted) {
      const definition = this.#byOriginal.get(key);
      if (definition && definition.name !== name) released.add(definition.name);
    }
    const claimed = new Set<string>();
    for (const [key, { name }] of wanted) {
      const holder = this.#byName.get(name);
      const heldByOther =
        holder !== undefined && !released.has(name) && `${holder.server}\0${holder.tool}` !== key;
      if (this.#reserved.has(name) || heldByOther || claimed.has(name)) return undefined;
      claimed.add(name);
    }
    return wanted;
  }

  /** Names every tool from scratch (see the naming rule above). */
  #rebuild(): void {
    const all = [...this.#servers.values()].flat();
    const names = new Map<Candidate, string>();
    const taken = new Set(this.#reserved);
    const suffixed: Candidate[] = [];
    for (const candidate of all) {
      if (this.#holders.get(candidate.base)?.size === 1 && candidate.base.length <= MAX_TOOL_NAME_LENGTH) {
        names.set(candidate, candidate.base);
        taken.add(candidate.base);
      } else suffixed.push(candidate);
    }
    // Code-unit order of the original names: the same for every start order.
    suffixed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let grown = false;
    for (const candidate of suffixed) {
      let hashLength = NAME_HASH_LENGTH;
      let name = this.#suffixed(candidate, hashLength);
      while (taken.has(name) && hashLength < 32) {
        hashLength += 2;
        name = this.#suffixed(candidate, hashLength);
      }
      grown ||= hashLength > NAME_HASH_LENGTH;
      names.set(candidate, name);
      taken.add(name);
    }

    const previous = new Map(this.#byOriginal);
    this.#byName.clear();
    this.#byOriginal.clear();
    for (const candidate of all) {
      const name = names.get(candidate) as string;
      const definition = this.#place(name, candidate, previous.get(candidate.key));
      this.#byName.set(name, definition);
      this.#byOriginal.set(candidate.key, definition);
    }
    this.#grown = grown;
    this.#perServer.clear();
    this.#list = undefined;
  }

  #suffixed(candidate: Candidate, hashLength: number): string {
    return suffixedName(this.#options.toolNameFormat, candidate.server, candidate.tool.name, hashLength);
  }

  /** The definition of a tool under a name: the old object when nothing it shows changed. */
  #place(name: string, candidate: Candidate, old: ToolDefinition | undefined): ToolDefinition {
    let definition: ToolDefinition;
    // Unchanged tools keep their objects: nothing to rebuild for them.
    if (old && old.name === name && this.#sources.get(old) === candidate.tool) definition = old;
    else {
      const fresh = this.#define(name, candidate);
      definition = old && sameDefinition(old, fresh) ? old : fresh;
      this.#sources.set(definition, candidate.tool);
    }
    keepUpstream(definition, candidate.tool);
    return definition;
  }

  #define(name: string, { server, tool }: Candidate): ToolDefinition {
    const prefix = this.#options.descriptionPrefix.replaceAll("{server}", () => server);
    const description = tool.description?.trim()
      ? tool.description
      : typeof tool.title === "string" && tool.title.trim()
        ? tool.title
        : tool.name;
    return omitUndefined({
      name,
      server,
      tool: tool.name,
      description: cutDescription(`${prefix}${description}`),
      inputSchema: boundedSchema(tool.inputSchema as JsonSchema),
      title: tool.title,
      outputSchema: tool.outputSchema as JsonSchema | undefined,
      annotations: tool.annotations,
      icons: Array.isArray(tool.icons) ? tool.icons : undefined,
    });
  }
}

function toolProblem(raw: unknown): string | undefined {
  if (!raw || typeof raw !== "object") return "not an object";
  const tool = raw as Record<string, unknown>;
  if (typeof tool.name !== "string" || tool.name.length === 0) return "it has no name";
  const schema = tool.inputSchema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema))
    return "its inputSchema is not an object";
  const shape = notAnObjectSchema(schema as Record<string, unknown>);
  if (shape)
    return `its inputSchema is not an object schema (${shape}); LLM vendors reject a request holding one`;
  if (tool.description !== undefined && typeof tool.description !== "string")
    return "its description is not a string";
  if (tool.title !== undefined && typeof tool.title !== "string") return "its title is not a string";
  return undefined;
}

/**
 * Why a schema cannot be a tool's parameters: MCP and every LLM vendor want `type: "object"` at the top.
 * A schema without `type` but with properties (or nothing) is taken as an object schema (the adapters
 * add the type); one that is a union or a constant at the top is not.
 */
function notAnObjectSchema(schema: Record<string, unknown>): string | undefined {
  if (schema.type !== undefined)
    return schema.type === "object" ? undefined : `type ${JSON.stringify(schema.type)}`;
  const combinator = ["anyOf", "oneOf", "allOf", "not", "enum", "const"].find((key) => key in schema);
  return combinator === undefined ? undefined : `"${combinator}" at the top, no type "object"`;
}

/** Keeps definition objects stable across refreshes, so caches keyed on them (exports) stay warm. */
function sameDefinition(old: ToolDefinition, fresh: ToolDefinition): boolean {
  if (old.name !== fresh.name || old.description !== fresh.description || old.title !== fresh.title)
    return false;
  return (["inputSchema", "outputSchema", "annotations", "icons"] as const).every(
    (field) => old[field] === fresh[field] || JSON.stringify(old[field]) === JSON.stringify(fresh[field]),
  );
}
