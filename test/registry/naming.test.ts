import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatToolName,
  MIN_SERVER_PART_LENGTH,
  nameHash,
  normalizeNamePart,
  normalizeServerPart,
  normalizeToolPart,
  readablePart,
  TOOL_NAME_PATTERN,
} from "../../src/registry/naming.js";
import { ToolRegistry } from "../../src/registry/registry.js";

const noFilter = { include: [], exclude: [] };
const object = { type: "object" };
const tools = (...names: string[]) => names.map((name) => ({ name, inputSchema: object }));

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe("formatToolName", () => {
  it("always yields a valid name, the same for the same input", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("mcp_{server}_{tool}", "{server}__{tool}", "{tool}", "x.{server}.{tool}", "{server}"),
        fc.string({ maxLength: 120 }),
        fc.string({ unit: "grapheme", maxLength: 120 }),
        (format, server, tool) => {
          const name = formatToolName(format, server, tool);
          expect(name).toMatch(TOOL_NAME_PATTERN);
          expect(formatToolName(format, server, tool)).toBe(name);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("normalizes each part and caps long names with a hash of the original names", () => {
    expect(formatToolName("mcp_{server}_{tool}", "web-search", "find-all")).toBe("mcp_web_search_find-all");
    expect(formatToolName("mcp_{server}_{tool}", "a.b c", "日本")).toMatch(/^mcp_a_b_c_u[0-9a-f]{4}$/);
    expect(normalizeNamePart("🔧x")).toBe("_x");
    expect(normalizeServerPart("a-b")).toBe("a_b");
    expect(formatToolName("{tool}", "s", "")).toBe("_");
    const long = formatToolName("mcp_{server}_{tool}", "s", "t".repeat(200));
    expect(long).toHaveLength(64);
    expect(long.endsWith(`_${nameHash("s", "t".repeat(200))}`)).toBe(true);
    // `$&` in a name is text, not a replacement pattern.
    expect(formatToolName("mcp_{server}_{tool}", "$&", "$'")).toBe("mcp______");
  });
});

describe("long and non-ASCII names", () => {
  const format = "mcp_{server}_{tool}";

  it("shortens the server part before the tool part", () => {
    const server = "a_very_long_server_name_for_the_internal_knowledge_base_service";
    const name = formatToolName(format, server, "get_weather_forecast");
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^mcp_a_very_long_server_name_for_the__get_weather_forecast_[0-9a-f]{6}$/);
    // Both parts long: the server keeps its minimum, the tool the rest.
    const both = formatToolName(format, server, "x".repeat(100));
    expect(both).toBe(`mcp_a_very_l_${"x".repeat(44)}_${nameHash(server, "x".repeat(100))}`);
  });

  it("gives names without an ASCII spelling a readable, stable, distinct form", () => {
    expect(formatToolName(format, "服务器", "echo")).toMatch(/^mcp_u[0-9a-f]{4}_echo$/);
    expect(formatToolName(format, "服务器", "echo")).not.toBe(formatToolName(format, "服务", "echo"));
    expect(formatToolName(format, "café", "résumé")).toBe("mcp_cafe_resume");
    expect(formatToolName(format, "ｗｅｂ", "search")).toBe("mcp_web_search");
    expect(readablePart("🔧fix")).toMatch(/^fix_[0-9a-f]{4}$/);
    expect(readablePart("tools-日本-v2")).toMatch(/^tools_v2_[0-9a-f]{4}$/);
    // NFKD turns "≮" into "<" and a combining mark: no letter survives, so the hash stands in.
    expect(readablePart("≮")).toMatch(/^u[0-9a-f]{4}$/);
  });

  it("keeps a tool part of up to 44 characters whole and at least 8 characters of the server", () => {
    const room = 64 - "mcp__".length - 7 - MIN_SERVER_PART_LENGTH;
    expect(room).toBe(44);
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "grapheme", maxLength: 80 })),
        fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: "grapheme", maxLength: 30 })),
        (server, tool) => {
          const name = formatToolName(format, server, tool);
          expect(name).toMatch(TOOL_NAME_PATTERN);
          const toolPart = normalizeToolPart(tool);
          if (toolPart.length <= room) expect(name).toContain(`_${toolPart}`);
          const serverPart = normalizeServerPart(server);
          expect(name.startsWith(`mcp_${serverPart.slice(0, MIN_SERVER_PART_LENGTH)}`)).toBe(true);
          // Nothing is spelled as underscores only: a part with no ASCII spelling gets a hash.
          if (/[^\p{ASCII}]/u.test(server)) expect(serverPart).toMatch(/[A-Za-z0-9]/);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("collision rule", () => {
  it("suffixes every tool sharing a base name, and un-suffixes when the other one leaves", () => {
    const reg = new ToolRegistry({ toolNameFormat: "mcp_{server}_{tool}", descriptionPrefix: "" });
    reg.setServerTools("a-b", noFilter, tools("c"));
    reg.setServerTools("a", noFilter, tools("b_c"));
    expect(reg.list().map((d) => d.name)).toEqual([
      `mcp_a_b_c_${nameHash("a-b", "c")}`,
      `mcp_a_b_c_${nameHash("a", "b_c")}`,
    ]);
    reg.removeServer("a");
    expect(reg.list().map((d) => d.name)).toEqual(["mcp_a_b_c"]);
    expect(reg.resolve("a/b_c")).toBeUndefined();
  });

  it("gives the same names in every insertion order even when a suffixed name is taken", () => {
    const hashOfX = nameHash("one", "x");
    const servers: [string, string[]][] = [
      ["one", ["x"]],
      ["two", ["x"]],
      // A plain tool name that equals the suffixed name of one/x: plain names win, the hash grows.
      ["three", [`x_${hashOfX}`]],
    ];
    const results = permutations(servers).map((order) => {
      const reg = new ToolRegistry({ toolNameFormat: "{tool}", descriptionPrefix: "" });
      for (const [server, names] of order) reg.setServerTools(server, noFilter, tools(...names));
      return Object.fromEntries(reg.list().map((d) => [`${d.server}/${d.tool}`, d.name]));
    });
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0]).toEqual({
      "one/x": `x_${nameHash("one", "x", 8)}`,
      "two/x": `x_${nameHash("two", "x")}`,
      [`three/x_${hashOfX}`]: `x_${hashOfX}`,
    });
  });

  it("skips a tool named like a host tool, even when another server has the same tool", () => {
    const reg = new ToolRegistry({
      toolNameFormat: "{tool}",
      descriptionPrefix: "",
      reservedNames: ["read_file", `search_${nameHash("web", "search")}`],
    });
    const first = reg.setServerTools("fs1", noFilter, tools("read_file", "list"));
    const second = reg.setServerTools("fs2", noFilter, tools("read_file"));
    expect(reg.list().map((d) => d.name)).toEqual(["list"]);
    expect(first.warnings).toEqual([expect.stringMatching(/"fs1".*"read_file".*host's own tools/)]);
    expect(second.warnings).toHaveLength(1);
    // A suffixed name that happens to be reserved is moved, not taken.
    reg.setServerTools("web", noFilter, tools("search"));
    reg.setServerTools("web2", noFilter, tools("search"));
    expect(reg.forServer("web")[0]?.name).toBe(`search_${nameHash("web", "search", 8)}`);
  });
});

describe("resolve", () => {
  it("finds tools by exposed name or server/tool, with `/` inside either name", () => {
    const reg = new ToolRegistry({ toolNameFormat: "mcp_{server}_{tool}", descriptionPrefix: "" });
    reg.setServerTools("files", noFilter, tools("read/dir", "/abs"));
    reg.setServerTools("org/repo", noFilter, tools("issues"));
    expect(reg.resolve("files/read/dir")?.tool).toBe("read/dir");
    expect(reg.resolve("files//abs")?.tool).toBe("/abs");
    expect(reg.resolve("org/repo/issues")).toMatchObject({ server: "org/repo", tool: "issues" });
    expect(reg.resolve("mcp_org_repo_issues")?.server).toBe("org/repo");
    expect(reg.resolve("files/nope")).toBeUndefined();
    expect(reg.resolve("nope")).toBeUndefined();
    // Names are never parsed back: an exposed-looking string that was never registered is unknown.
    expect(reg.get("mcp_files_read")).toBeUndefined();
  });
});
