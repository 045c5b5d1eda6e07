/**
 * Tool search and catalog mode on the tools of real MCP servers (test/fixtures/catalogs): definition
 * tokens per request with and without catalog mode, recall of `searchTools` on tasks phrased as a
 * user would, and search latency in a 10,000-tool catalog.
 */
import { definitionTokens, toolCatalog } from "../src/adapters/search-tools.js";
import type { ToolEntry } from "../src/bridge/api.js";
import { flattenParameters } from "../src/registry/flatten.js";
import type { ToolDefinition } from "../src/registry/tool-definition.js";
import { ToolSearchIndex } from "../src/search/tool-search.js";
import { realCatalog, realQueries } from "../test/fixtures/catalogs/index.js";
import { type Figure, percentile } from "./stats.js";

function entries(definitions: readonly ToolDefinition[]): ToolEntry[] {
  return definitions.map((d) => ({
    ...d,
    call: async () => ({ text: "", content: [], isError: false }),
    flatParameters: () => flattenParameters(d.inputSchema),
  }));
}

export async function toolSearchFigures(quick: boolean): Promise<Figure[]> {
  const catalog = entries(realCatalog());
  const servers = new Set(catalog.map((t) => t.server)).size;
  const index = new ToolSearchIndex(catalog);
  const source = {
    tools: () => catalog,
    tool: (name: string) => catalog.find((t) => t.name === name),
    searchTools: (query: string, options?: { limit?: number }) => index.search(query, options),
    call: async () => ({ text: "", content: [], isError: false }),
  };
  const mode = await toolCatalog(source, { mode: "always" });
  const full = await definitionTokens(catalog);

  const queries = realQueries();
  let atOne = 0;
  let atFive = 0;
  for (const query of queries) {
    const rank = index
      .search(query.query, { limit: 5 })
      .findIndex((hit) => hit.server === query.server && hit.tool === query.tool);
    if (rank === 0) atOne++;
    if (rank >= 0) atFive++;
  }

  const many: ToolDefinition[] = [];
  for (let i = 0; many.length < 10_000; i++) {
    const base = catalog[i % catalog.length] as ToolDefinition;
    many.push({ ...base, name: `t${i}_${base.tool}`.slice(0, 64), server: `s${Math.floor(i / 50)}` });
  }
  const buildStart = performance.now();
  const big = new ToolSearchIndex(many);
  const buildMs = performance.now() - buildStart;
  const rounds = quick ? 2 : 10;
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const t = process.hrtime.bigint();
      big.search(query.query, { limit: 5 });
      samples.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const p50 = percentile(samples, 0.5);
  const p99 = percentile(samples, 0.99);
  return [
    {
      name: "catalog_mode_definition_tokens",
      unit: "tokens",
      bridge: mode.exportedTokens,
      baseline: full,
      baselineName: `all ${catalog.length} tools of ${servers} servers`,
      detail: `o200k tokens per request; ${(100 * (1 - mode.exportedTokens / full)).toFixed(1)}% fewer`,
      target: {
        text: ">= 85% fewer definition tokens at 150+ tools",
        met: mode.exportedTokens <= 0.15 * full,
      },
    },
    {
      name: "search_recall_at_5",
      unit: "",
      bridge: atFive / queries.length,
      baseline: 0.9,
      baselineName: "target",
      detail: `${queries.length} tasks; recall@1 ${(atOne / queries.length).toFixed(3)}`,
      target: { text: "recall@5 >= 0.9", met: atFive / queries.length >= 0.9 },
    },
    {
      name: "search_p50_10000_tools",
      unit: "ms",
      bridge: p50,
      baseline: 5,
      baselineName: "target",
      detail: `p99 ${p99.toFixed(3)} ms, index built in ${buildMs.toFixed(0)} ms`,
      target: { text: "< 5 ms per query at 10,000 tools", met: p99 < 5 },
    },
  ];
}
