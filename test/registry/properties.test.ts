import type { Tool } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  baseToolName,
  normalizeToolPart,
  suffixedName,
  TOOL_NAME_PATTERN,
} from "../../src/registry/naming.js";
import { ToolRegistry } from "../../src/registry/registry.js";

const noFilter = { include: [], exclude: [] };
const registry = (format = "mcp_{server}_{tool}") =>
  new ToolRegistry({ toolNameFormat: format, descriptionPrefix: "[MCP:{server}] " });

/** Names as servers and tools really have them, plus the hostile cases. */
const anyName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  fc.constantFrom(
    "web-search",
    "web_search",
    "a.b",
    "a b",
    "日本語",
    "🔧",
    "...",
    "---",
    "_",
    "x".repeat(200),
    "服务器",
    "服务",
    "café",
    "cafe",
    "ｗｅｂ",
    "a_very_long_server_name_for_the_internal_knowledge_base",
  ),
  // Long names that differ only after the part a shortened name keeps: collisions after cutting.
  fc
    .string({ unit: fc.constantFrom("a", "b", "服", "_"), minLength: 1, maxLength: 3 })
    .map((tail) => `shared_long_prefix_of_more_than_forty_characters_${tail}`),
  fc.string({ unit: fc.constantFrom("服", "务", "器", "é", "x"), minLength: 1, maxLength: 6 }),
  fc.string({ minLength: 150, maxLength: 220 }),
  // A tiny alphabet of characters that normalize alike: collisions on purpose.
  fc.string({ unit: fc.constantFrom("a", "-", "_", " ", ".", "é", "/"), minLength: 1, maxLength: 4 }),
);

const jsonSchema = fc.oneof(
  fc.constant({ type: "object" }),
  fc.record({
    type: fc.constant("object"),
    properties: fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.record({ type: fc.constantFrom("string", "number", "boolean") }),
    ),
  }),
);

describe("tool definition mapping", () => {
  it("an entry has the mapped name, contains the original description and keeps the input schema", () => {
    fc.assert(
      fc.property(
        anyName,
        anyName,
        fc.string({ maxLength: 200 }),
        jsonSchema,
        (server, name, description, inputSchema) => {
          const reg = registry();
          const tool: Tool = { name, description, inputSchema: inputSchema as Tool["inputSchema"] };
          const [entry] = reg.setServerTools(server, noFilter, [tool]).definitions;
          expect(entry).toBeDefined();
          expect(entry?.name).toMatch(TOOL_NAME_PATTERN);
          expect(entry?.server).toBe(server);
          expect(entry?.tool).toBe(name);
          if (description.trim()) expect(entry?.description).toBe(`[MCP:${server}] ${description}`);
          expect(entry?.description.startsWith(`[MCP:${server}]`)).toBe(true);
          expect(entry?.inputSchema).toBe(tool.inputSchema);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("name round-trip", () => {
  it("exposed names are valid, unique, map back to the originals, and do not depend on start order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(anyName, fc.uniqueArray(anyName, { minLength: 1, maxLength: 6 })), {
          selector: ([server]) => server,
          minLength: 1,
          maxLength: 5,
        }),
        fc.infiniteStream(fc.nat()),
        (servers, randomness) => {
          const tools = (names: string[]) => names.map((name) => ({ name, inputSchema: { type: "object" } }));
          const forward = registry();
          for (const [server, names] of servers) forward.setServerTools(server, noFilter, tools(names));
          // The same servers connecting in another order.
          const shuffled = [...servers].sort(() => (randomness.next().value % 3) - 1);
          const other = registry();
          for (const [server, names] of shuffled) other.setServerTools(server, noFilter, tools(names));

          const namesOf = (reg: ToolRegistry) =>
            new Map(reg.list().map((d) => [`${d.server}\0${d.tool}`, d.name] as const));
          expect(namesOf(other)).toEqual(namesOf(forward));
          const all = forward.list();
          expect(all).toHaveLength(servers.reduce((n, [, names]) => n + names.length, 0));
          expect(new Set(all.map((d) => d.name)).size).toBe(all.length);
          for (const definition of all) {
            expect(definition.name).toMatch(TOOL_NAME_PATTERN);
            // Readable: a tool part that fits beside 8 characters of server and a hash is kept whole.
            const toolPart = normalizeToolPart(definition.tool);
            if (toolPart.length <= 44) expect(definition.name).toContain(`_${toolPart}`);
            expect(forward.get(definition.name)).toBe(definition);
            const resolved = forward.resolve(`${definition.server}/${definition.tool}`);
            // `a/b` + `c` and `a` + `b/c` spell the same; either is a correct answer, nothing else is.
            expect(`${resolved?.server}/${resolved?.tool}`).toBe(`${definition.server}/${definition.tool}`);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps plain names plain and gives colliding ones a stable suffix", () => {
    const reg = registry();
    reg.setServerTools("web-search", noFilter, [{ name: "find", inputSchema: { type: "object" } }]);
    expect(reg.list().map((d) => d.name)).toEqual(["mcp_web_search_find"]);
    reg.setServerTools("web_search", noFilter, [{ name: "find", inputSchema: { type: "object" } }]);
    const names = reg.list().map((d) => d.name);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^mcp_web_search_find_[0-9a-f]{6}$/);
    expect(reg.resolve("web-search/find")?.server).toBe("web-search");
    expect(reg.resolve("web_search/find")?.server).toBe("web_search");
    const long = registry();
    long.setServerTools("s", noFilter, [{ name: "t".repeat(100), inputSchema: { type: "object" } }]);
    expect(long.list()[0]?.name).toHaveLength(64);
  });
});

describe("incremental updates", () => {
  // Tools that land on another tool's suffixed name, and a reserved name equal to one: the rare case
  // where a hash must grow, which makes names depend on the whole table.
  const traps = [suffixedName("{tool}", "a", "x"), suffixedName("{tool}", "b", "x")];
  const reservedTrap = suffixedName("{tool}", "c", "y");
  const toolName = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("x", "y", "x-y", "x_y", "x y", ...traps) },
    { weight: 1, arbitrary: anyName },
  );
  const serverName = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("a", "b", "c", "a-b", "a_b", "a b") },
    { weight: 1, arbitrary: anyName },
  );

  /** The naming rule written out plainly, over the final set of tools. */
  function referenceNames(format: string, reserved: string[], servers: Map<string, string[]>) {
    const all = [...servers].flatMap(([server, tools]) =>
      tools.map((tool) => ({
        server,
        tool,
        base: baseToolName(format, server, tool),
        key: `${server}\0${tool}`,
      })),
    );
    const count = new Map<string, number>();
    for (const c of all) count.set(c.base, (count.get(c.base) ?? 0) + 1);
    const names = new Map<string, string>();
    const taken = new Set(reserved);
    for (const c of all)
      if (count.get(c.base) === 1 && c.base.length <= 64) {
        names.set(c.key, c.base);
        taken.add(c.base);
      }
    let grown = false;
    const suffixed = all
      .filter((c) => !names.has(c.key))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const c of suffixed) {
      let length = 6;
      let name = suffixedName(format, c.server, c.tool, length);
      while (taken.has(name) && length < 32) {
        length += 2;
        name = suffixedName(format, c.server, c.tool, length);
      }
      grown ||= length > 6;
      names.set(c.key, name);
      taken.add(name);
    }
    return { names, grown };
  }

  let grownRuns = 0;
  it("any sequence of set and remove gives the table one build over the final tools gives", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("{tool}", "mcp_{server}_{tool}", "{server}__{tool}"),
        fc.array(
          fc.record({
            server: serverName,
            tools: fc.option(fc.uniqueArray(toolName, { maxLength: 5 }), { freq: 4 }),
            description: fc.constantFrom("one", "two"),
          }),
          { minLength: 1, maxLength: 14 },
        ),
        (format, steps) => {
          const options = {
            toolNameFormat: format,
            descriptionPrefix: "[{server}] ",
            reservedNames: [reservedTrap],
          };
          const incremental = new ToolRegistry(options);
          const final = new Map<string, string[]>();
          const descriptions = new Map<string, string>();
          const toolsOf = (names: string[], description: string) =>
            names.map((name) => ({ name, description, inputSchema: { type: "object" } }));
          for (const { server, tools, description } of steps) {
            if (tools === null) {
              incremental.removeServer(server);
              if (final.has(server)) final.set(server, []);
              continue;
            }
            incremental.setServerTools(server, noFilter, toolsOf(tools, description));
            // A tool named like a reserved name is skipped, in both builds.
            final.set(
              server,
              tools.filter((tool) => baseToolName(format, server, tool) !== reservedTrap),
            );
            descriptions.set(server, description);
          }
          const once = new ToolRegistry(options);
          once.declareServers([...final.keys()]);
          for (const [server, tools] of final)
            if (tools.length > 0)
              once.setServerTools(server, noFilter, toolsOf(tools, descriptions.get(server) ?? ""));

          const reference = referenceNames(format, [reservedTrap], final);
          if (reference.grown) grownRuns++;
          const namesOf = (reg: ToolRegistry) =>
            new Map(reg.list().map((d) => [`${d.server}\0${d.tool}`, d.name] as const));
          expect(namesOf(incremental)).toEqual(reference.names);
          expect(incremental.list()).toEqual(once.list());
          for (const [server] of final) expect(incremental.forServer(server)).toEqual(once.forServer(server));
          for (const definition of incremental.list()) {
            expect(incremental.get(definition.name)).toBe(definition);
            expect(incremental.resolve(`${definition.server}/${definition.tool}`)?.name).toBeDefined();
          }
          expect(incremental.get(reservedTrap)).toBeUndefined();
        },
      ),
      { numRuns: 400 },
    );
    // The runs reached the case where a hash grows (else this test would not cover it).
    expect(grownRuns).toBeGreaterThan(0);
  });

  it("a server connecting renames only the tools it collides with: other servers keep their objects", () => {
    const reg = registry();
    reg.setServerTools("web-search", noFilter, [
      { name: "find", inputSchema: { type: "object" } },
      { name: "keep", inputSchema: { type: "object" } },
    ]);
    const [find, keep] = reg.forServer("web-search");
    reg.setServerTools("web_search", noFilter, [{ name: "find", inputSchema: { type: "object" } }]);
    const [findAfter, keepAfter] = reg.forServer("web-search");
    expect(keepAfter).toBe(keep);
    expect(findAfter?.name).toMatch(/^mcp_web_search_find_[0-9a-f]{6}$/);
    expect(reg.get(find?.name ?? "")).toBeUndefined();
    reg.removeServer("web_search");
    expect(reg.forServer("web-search").map((d) => d.name)).toEqual([
      "mcp_web_search_find",
      "mcp_web_search_keep",
    ]);
  });
});
