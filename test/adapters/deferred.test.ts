import { describe, expect, it } from "vitest";
import { toAnthropicDeferredTools, toOpenAIResponsesDeferredTools } from "../../src/adapters/deferred.js";
import type { ToolDefinition } from "../../src/registry/tool-definition.js";
import { realCatalog } from "../fixtures/catalogs/index.js";
import { anthropicProblems } from "./vendor-constraints.js";

const catalog = realCatalog();

describe("native deferred loading exports", () => {
  it("Anthropic: the tool search tool first, every tool deferred except the pinned ones", () => {
    const pinned = catalog[0] as ToolDefinition;
    const [search, ...tools] = toAnthropicDeferredTools(catalog, {
      alwaysLoad: [`${pinned.server}/${pinned.tool}`],
    });
    expect(search).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(tools).toHaveLength(catalog.length);
    expect(tools.filter((t) => t.defer_loading !== true).map((t) => t.name)).toEqual([pinned.name]);
    expect(tools.flatMap(anthropicProblems)).toEqual([]);
    expect(toAnthropicDeferredTools(catalog, { search: "regex" })[0].name).toBe("tool_search_tool_regex");
  });

  it("OpenAI Responses: tool_search, then one namespace per server with deferred functions", () => {
    const [search, ...namespaces] = toOpenAIResponsesDeferredTools(catalog, {
      alwaysLoad: [catalog[0]?.name ?? ""],
    });
    expect(search).toEqual({ type: "tool_search" });
    expect(namespaces.map((n) => n.name)).toEqual(
      [...new Set(catalog.map((t) => t.server))].map((s) => s.replace(/[^A-Za-z0-9_-]/g, "_")),
    );
    const functions = namespaces.flatMap((n) => n.tools);
    expect(functions.map((f) => f.name)).toEqual(catalog.map((t) => t.name));
    expect(functions.filter((f) => !f.defer_loading)).toHaveLength(1);
    for (const fn of functions) {
      expect(fn.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(fn.parameters.type).toBe("object");
    }
  });

  it("namespace names stay unique when server names normalize alike", () => {
    const tool = (server: string): ToolDefinition => ({
      name: `n_${server.length}`,
      server,
      tool: "t",
      description: "",
      inputSchema: {},
    });
    const [, ...namespaces] = toOpenAIResponsesDeferredTools([tool("a.b"), tool("a_b"), tool("服务")]);
    const names = namespaces.map((n) => n.name);
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});
