import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ToolDefinition } from "../../src/registry/types.js";

/** Tool lists captured from real MCP servers on npm (scripts/capture-catalogs.mjs). */
export const CATALOG_DIR = resolve("test/fixtures/catalogs");

interface CatalogFile {
  readonly server: string;
  readonly tools: readonly {
    name: string;
    title?: string;
    description?: string;
    inputSchema: Record<string, unknown>;
  }[];
}

export interface Query {
  readonly query: string;
  readonly server: string;
  readonly tool: string;
}

export function realCatalog(): ToolDefinition[] {
  return readdirSync(CATALOG_DIR)
    .filter((file) => file.endsWith(".json") && file !== "queries.json")
    .sort()
    .flatMap((file) => {
      const catalog = JSON.parse(readFileSync(join(CATALOG_DIR, file), "utf8")) as CatalogFile;
      return catalog.tools.map((tool) => ({
        name: `mcp_${catalog.server.replaceAll("-", "_")}_${tool.name}`.slice(0, 64),
        server: catalog.server,
        tool: tool.name,
        description: tool.description ?? "",
        ...(tool.title ? { title: tool.title } : {}),
        inputSchema: tool.inputSchema,
      }));
    });
}

export function realQueries(): Query[] {
  return JSON.parse(readFileSync(join(CATALOG_DIR, "queries.json"), "utf8")) as Query[];
}
