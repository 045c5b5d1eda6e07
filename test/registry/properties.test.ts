import type { Tool } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeToolPart, TOOL_NAME_PATTERN } from "../../src/registry/naming.js";
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
