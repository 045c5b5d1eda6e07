import type { JsonSchema } from "../registry/tool-definition.js";

/**
 * What a model gives a `search_tools` meta-tool, whichever face serves it (the search adapter,
 * code mode): the input schema and how its `limit` is read.
 */

/**
 * How many tools a search returns unless asked: the library's `searchTools` and the catalog's
 * `search_tools` (code mode's own is in its defaults table).
 */
export const DEFAULT_SEARCH_LIMIT = 5;

/** The input schema of a `search_tools` meta-tool that returns at most `limit` tools. */
export function searchToolsInputSchema(limit: number): JsonSchema {
  return {
    type: "object",
    properties: {
      query: { type: "string", description: "What you want to do, in a few words, or a tool name." },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: limit,
        description: `How many tools to return (default ${limit}).`,
      },
    },
    required: ["query"],
  };
}

/** The number of tools a search asked for: its `limit` argument as a whole number in 1..limit, else `limit`. */
export function searchLimit(given: unknown, limit: number): number {
  return typeof given === "number" ? Math.min(limit, Math.max(1, Math.floor(given))) : limit;
}
