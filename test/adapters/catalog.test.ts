import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAnthropicTools } from "../../src/adapters/anthropic.js";
import { executeOpenAIToolCalls } from "../../src/adapters/execute.js";
import { toGeminiTools } from "../../src/adapters/gemini.js";
import { toOpenAITools } from "../../src/adapters/openai.js";
import {
  catalogCaller,
  catalogTools,
  definitionTokens,
  toolCatalog,
} from "../../src/adapters/search-tools.js";
import type { Bridge, ToolEntry } from "../../src/bridge/api.js";
import { startBridge } from "../../src/bridge/bridge.js";
import { flattenParameters } from "../../src/registry/flatten.js";
import { ToolSearchIndex } from "../../src/search/tool-search.js";
import { realCatalog } from "../fixtures/catalogs/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { anthropicProblems, geminiProblems, openAIProblems } from "./vendor-constraints.js";

let bridge: Bridge;
beforeAll(async () => {
  bridge = await startBridge({ servers: { calc: inProcessEntry("normal") } });
}, 30_000);
afterAll(() => bridge?.close());

function meta(): { search: ToolEntry; call: ToolEntry } {
  const [search, call] = catalogTools(bridge);
  if (!search || !call) throw new Error("no meta-tools");
  return { search, call };
}

describe("catalog mode with a real server", () => {
  it("gives the model two meta-tools, valid for every vendor", () => {
    const tools = catalogTools(bridge);
    expect(tools.map((t) => t.name)).toEqual(["mcp_search_tools", "mcp_call_tool"]);
    expect(toOpenAITools(tools).flatMap(openAIProblems)).toEqual([]);
    expect(toAnthropicTools(tools).flatMap(anthropicProblems)).toEqual([]);
    expect(toGeminiTools(tools).flatMap(geminiProblems)).toEqual([]);
  });

  it("search_tools finds the tool with its parameters; call_tool runs it", async () => {
    const { search, call } = meta();
    const found = await search.call({ query: "add two numbers" });
    expect(found.isError).toBe(false);
    expect(found.text).toContain("mcp_calc_add");
    expect(found.text).toContain('"a"');
    expect((found.structuredContent as { tools: { name: string }[] }).tools[0]?.name).toBe("mcp_calc_add");
    const result = await call.call({ name: "mcp_calc_add", arguments: { a: 2, b: 3 } });
    expect(result).toMatchObject({ isError: false, text: "5" });
    // server/tool works too, and a tool the model never searched for is allowed when it exists.
    expect((await call.call({ name: "calc/echo", arguments: { text: "hi" } })).text).toBe("hi");
  });

  it("call_tool validates against the real schema and refuses unknown names with advice", async () => {
    const { call } = meta();
    const bad = await call.call({ name: "mcp_calc_add", arguments: { a: "two" } }, { onError: "result" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("INVALID_ARGUMENTS");
    const unknown = await call.call({ name: "mcp_calc_nope", arguments: {} });
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.text).toContain("mcp_search_tools");
    expect(unknown.text).toContain("TOOL_NOT_FOUND");
    expect((await call.call({ name: "mcp_call_tool", arguments: {} })).isError).toBe(true);
    expect((await call.call({ name: "mcp_calc_add", arguments: [1, 2] })).text).toContain(
      '"arguments" must be an object',
    );
    await expect(call.call({ name: "nope" }, { onError: "throw" })).rejects.toMatchObject({
      code: "TOOL_NOT_FOUND",
    });
  });

  it("search_tools explains empty and hopeless queries instead of failing", async () => {
    const { search } = meta();
    expect((await search.call({ query: "   " })).text).toContain('needs a "query"');
    expect((await search.call({})).isError).toBe(true);
    const none = await search.call({ query: "zzqx unrelatedness" });
    expect(none.isError).toBe(false);
    expect(none.text).toContain("No tool matches");
    expect((await search.call({ query: "x".repeat(100_000) })).isError).toBe(false);
  });

  it("the executors resolve meta-tool calls transparently", async () => {
    const messages = await executeOpenAIToolCalls(catalogCaller(bridge, catalogTools(bridge)), [
      {
        id: "1",
        type: "function",
        function: { name: "mcp_search_tools", arguments: '{"query":"greet someone"}' },
      },
      {
        id: "2",
        type: "function",
        function: {
          name: "mcp_call_tool",
          arguments: '{"name":"mcp_calc_greet","arguments":{"name":"Ada"}}',
        },
      },
    ]);
    expect(messages[0]?.content).toContain("mcp_calc_greet");
    expect(messages[1]?.content).toBe("Hello, Ada!");
  });

  it("auto mode keeps every tool under the budget and switches to the catalog above it; pinned tools stay", async () => {
    const small = await toolCatalog(bridge, { budgetTokens: 1_000_000 });
    expect(small.mode).toBe("full");
    expect(small.tools.length).toBe(bridge.tools().length);
    const tight = await toolCatalog(bridge, { budgetTokens: 10, alwaysLoad: ["calc/echo"] });
    expect(tight.mode).toBe("catalog");
    expect(tight.tools.map((t) => t.name)).toEqual(["mcp_search_tools", "mcp_call_tool", "mcp_calc_echo"]);
    expect(tight.fullTokens).toBeGreaterThan(0);
    const [result] = await executeOpenAIToolCalls(tight, [
      {
        id: "x",
        function: { name: "mcp_call_tool", arguments: '{"name":"mcp_calc_add","arguments":{"a":1,"b":1}}' },
      },
    ]);
    expect(result?.content).toBe("2");
    expect((await toolCatalog(bridge, { mode: "never", budgetTokens: 1 })).mode).toBe("full");
  });
});

describe("catalog mode at the scale it is for", () => {
  it("cuts definition tokens by at least 85% for a 200-tool catalog of real servers", async () => {
    const definitions = realCatalog();
    const entries: ToolEntry[] = definitions.map((d) => ({
      ...d,
      call: async () => ({ text: "", content: [], isError: false }),
      flatParameters: () => flattenParameters(d.inputSchema),
    }));
    const index = new ToolSearchIndex(entries);
    const source = {
      tools: () => entries,
      tool: (name: string) => entries.find((e) => e.name === name),
      searchTools: (query: string, options?: { limit?: number }) => index.search(query, options),
      call: async () => ({ text: "", content: [], isError: false }),
    };
    const catalog = await toolCatalog(source, { contextWindow: 128_000 });
    expect(catalog.mode).toBe("catalog");
    expect(catalog.fullTokens).toBe(await definitionTokens(entries));
    expect(catalog.exportedTokens / catalog.fullTokens).toBeLessThanOrEqual(0.15);
  });
});
