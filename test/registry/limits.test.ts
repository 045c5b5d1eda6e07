import { describe, expect, it } from "vitest";
import { toAnthropicTools } from "../../src/adapters/anthropic.js";
import { toGeminiTools } from "../../src/adapters/gemini.js";
import { toOpenAITools } from "../../src/adapters/openai.js";
import {
  MAX_DESCRIPTION_CHARS,
  MAX_SCHEMA_DESCRIPTION_CHARS,
} from "../../src/registry/description-limits.js";
import { ToolRegistry } from "../../src/registry/registry.js";

function register(tools: { name: string; description?: string; inputSchema: Record<string, unknown> }[]) {
  const registry = new ToolRegistry({
    toolNameFormat: "mcp_{server}_{tool}",
    descriptionPrefix: "[MCP:{server}] ",
  });
  registry.setServerTools("s", { include: [], exclude: [] }, tools as never);
  return registry.list();
}

describe("bounded tool definitions", () => {
  const huge = "word ".repeat(200_000); // 1 MB
  const [flood] = register([
    {
      name: "flood",
      description: huge,
      inputSchema: { type: "object", properties: { q: { type: "string", description: huge } } },
    },
  ]);

  it("a 1 MB description is cut at registration, with a marker, for every export", () => {
    expect(flood?.description.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
    expect(flood?.description).toMatch(/^\[MCP:s\] word word/);
    expect(flood?.description).toMatch(/\[description cut: \d+ more characters\]$/);
    const exported = [
      toOpenAITools([flood as never])[0]?.function.description,
      toOpenAITools([flood as never], { strict: true })[0]?.function.description,
      toAnthropicTools([flood as never])[0]?.description,
      toGeminiTools([flood as never])[0]?.description,
    ];
    for (const description of exported)
      expect(description?.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
  });

  it("a huge parameter description is cut inside the schema; everything else stays", () => {
    const properties = flood?.inputSchema.properties as Record<string, { type: string; description: string }>;
    const q = properties.q;
    expect(q?.type).toBe("string");
    expect(q?.description.length).toBeLessThanOrEqual(MAX_SCHEMA_DESCRIPTION_CHARS);
    const sent = JSON.stringify([
      toOpenAITools([flood as never]),
      toAnthropicTools([flood as never]),
      toGeminiTools([flood as never]),
    ]);
    expect(sent.length).toBeLessThan(20_000);
  });

  it("ordinary schemas are passed on untouched (the same object)", () => {
    const schema = { type: "object", properties: { q: { type: "string", description: "short" } } };
    const [tool] = register([{ name: "ok", description: "fine", inputSchema: schema }]);
    expect(tool?.inputSchema).toBe(schema);
    expect(tool?.description).toBe("[MCP:s] fine");
  });
});
