import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/registry/tool-definition.js";
import { stem, terms, words } from "../../src/search/terms.js";
import { MAX_QUERY_CHARS, ToolSearchIndex } from "../../src/search/tool-search.js";
import { realCatalog, realQueries } from "../fixtures/catalogs/index.js";

const catalog = realCatalog();
const index = new ToolSearchIndex(catalog);

describe("search terms", () => {
  it("splits identifiers and prose the same way", () => {
    expect(words("getFileContents")).toEqual(["get", "file", "contents"]);
    expect(words("API-post-search")).toEqual(["api", "post", "search"]);
    expect(words("read_text_file, please!")).toEqual(["read", "text", "file", "please"]);
    expect(words("HTTPServer")).toEqual(["http", "server"]);
  });

  it("meets inflected forms on one stem and drops stop words", () => {
    expect(stem("issues")).toBe(stem("issue"));
    expect(terms("creating issues")).toEqual(terms("create issue"));
    expect(terms("the list of all the files")).toEqual(terms("list all files"));
  });
});

describe("ToolSearchIndex over real servers' tools", () => {
  it("the captured catalog is large and varied enough to mean something", () => {
    expect(catalog.length).toBeGreaterThanOrEqual(150);
    expect(new Set(catalog.map((tool) => tool.server)).size).toBeGreaterThanOrEqual(10);
    expect(realQueries().length).toBeGreaterThanOrEqual(100);
  });

  it("finds the tool a user's task needs: recall@5 >= 0.9 on the query set", () => {
    let atOne = 0;
    let atFive = 0;
    const queries = realQueries();
    for (const query of queries) {
      const hits = index.search(query.query, { limit: 5 });
      const rank = hits.findIndex((hit) => hit.server === query.server && hit.tool === query.tool);
      if (rank === 0) atOne++;
      if (rank >= 0) atFive++;
    }
    expect(atFive / queries.length).toBeGreaterThanOrEqual(0.9);
    expect(atOne / queries.length).toBeGreaterThanOrEqual(0.6);
  });

  it("ranks a tool first when the query is its exposed name, server/tool, or original name", () => {
    const target = catalog.find((tool) => tool.tool === "browser_navigate_back") as ToolDefinition;
    for (const query of [
      target.name,
      `${target.server}/${target.tool}`,
      target.tool,
      target.name.toUpperCase(),
    ]) {
      expect(index.search(query, { limit: 3 })[0]).toBe(target);
    }
  });

  it("limits to one server when asked", () => {
    const hits = index.search("create an issue", { limit: 10, server: "gitlab" });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.server === "gitlab")).toBe(true);
    expect(hits[0]?.tool).toBe("create_issue");
  });

  it("answers /regex/ queries over names and descriptions, case-insensitive with /i", () => {
    const hits = index.search("/^mcp_github_.*pull_request/", { limit: 50 });
    expect(hits.length).toBeGreaterThan(5);
    expect(hits.every((hit) => hit.server === "github" && hit.tool.includes("pull_request"))).toBe(true);
    expect(index.search("/SCREENSHOT/i", { limit: 50 }).map((h) => h.server)).toEqual(
      expect.arrayContaining(["playwright", "puppeteer"]),
    );
    expect(index.search("/SCREENSHOT/", { limit: 50 })).toEqual([]);
    expect(() => index.search("/(a)\\1/")).toThrow(/Invalid regular expression.*RE2 syntax/);
    try {
      index.search("/(/");
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_ARGUMENTS" });
    }
  });

  it("a backtracking pattern over a huge description is bounded (RE2, linear time)", () => {
    const victim: ToolDefinition = {
      name: "mcp_x_y",
      server: "x",
      tool: "y",
      description: `${"a".repeat(7_000)}!`,
      inputSchema: {},
    };
    const small = new ToolSearchIndex([victim]);
    // With a backtracking engine this pattern on 7,000 'a's followed by '!' never finishes.
    expect(small.search("/^(a+)+$/")).toEqual([]);
    expect(small.search("/^(a+)+!$/")).toEqual([victim]);
  });

  it("finds nothing for empty, blank or stop-word-only queries, and respects the limit", () => {
    expect(index.search("")).toEqual([]);
    expect(index.search("   \n\t")).toEqual([]);
    expect(index.search("the of and to")).toEqual([]);
    expect(index.search("file", { limit: 0 })).toEqual([]);
    expect(index.search("file", { limit: 3 })).toHaveLength(3);
    expect(index.search("file")).toHaveLength(5);
  });

  it("answers a huge query from its first characters without blowing up", () => {
    const huge = `read a file ${"x".repeat(2_000_000)}`;
    const hits = index.search(huge);
    expect(hits.length).toBeGreaterThan(0);
    expect(MAX_QUERY_CHARS).toBeLessThan(huge.length);
  });

  it("any query string: never throws, at most `limit` distinct catalog tools, same answer twice", () => {
    const members = new Set(catalog);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200, unit: "grapheme" }),
        fc.integer({ min: 0, max: 20 }),
        (query, limit) => {
          const hits = index.search(query, { limit });
          expect(hits.length).toBeLessThanOrEqual(limit);
          expect(new Set(hits).size).toBe(hits.length);
          for (const hit of hits) expect(members.has(hit)).toBe(true);
          expect(index.search(query, { limit })).toEqual(hits);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("indexes 10,000 tools and finds a needle among them", () => {
    const many: ToolDefinition[] = [];
    for (let i = 0; i < 10_000; i++) {
      const base = catalog[i % catalog.length] as ToolDefinition;
      many.push({ ...base, name: `t${i}_${base.tool}`.slice(0, 64), server: `s${Math.floor(i / 50)}` });
    }
    const needle: ToolDefinition = {
      name: "mcp_weather_forecast",
      server: "weather",
      tool: "get_forecast",
      description: "Seven-day weather forecast for a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    };
    const big = new ToolSearchIndex([...many, needle]);
    expect(big.size).toBe(10_001);
    expect(big.search("weather forecast for Lisbon")[0]).toBe(needle);
  });
});
