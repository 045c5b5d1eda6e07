import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toAnthropicTools } from "../../src/adapters/anthropic.js";
import { toGeminiTools } from "../../src/adapters/gemini.js";
import { toOpenAITools } from "../../src/adapters/openai.js";
import type { ToolDefinition } from "../../src/registry/tool-definition.js";
import { realCatalog } from "../fixtures/catalogs/index.js";
import { anthropicProblems, geminiProblems, openAIProblems } from "./vendor-constraints.js";

const tool = (inputSchema: Record<string, unknown>, name = "mcp_s_t"): ToolDefinition => ({
  name,
  server: "s",
  tool: "t",
  description: "d",
  inputSchema,
});

describe("every real server's tools through every export", () => {
  const catalog = realCatalog();
  it("OpenAI (plain and strict), Anthropic and Gemini accept every definition", () => {
    expect(catalog.length).toBeGreaterThan(150);
    const problems = [
      ...toOpenAITools(catalog).flatMap(openAIProblems),
      ...toOpenAITools(catalog, { strict: true }).flatMap(openAIProblems),
      ...toAnthropicTools(catalog).flatMap(anthropicProblems),
      ...toGeminiTools(catalog).flatMap(geminiProblems),
    ];
    expect(problems).toEqual([]);
  });
});

describe("toGeminiTools", () => {
  it("inlines $ref/$defs and cuts a cycle, saying so in the description", () => {
    const [declaration] = toGeminiTools([
      tool({
        type: "object",
        properties: { root: { $ref: "#/$defs/Node" }, tag: { $ref: "#/$defs/Tag" } },
        required: ["root"],
        $defs: {
          Tag: { type: "string", enum: ["a", "b"] },
          Node: {
            type: "object",
            properties: {
              label: { type: "string" },
              children: { type: "array", items: { $ref: "#/$defs/Node" } },
            },
          },
        },
      }),
    ]);
    expect(geminiProblems(declaration as never)).toEqual([]);
    const root = declaration?.parameters?.properties?.root;
    expect(root?.properties?.label).toEqual({ type: "STRING" });
    expect(root?.properties?.children?.items?.description).toContain("recursive");
    expect(declaration?.parameters?.properties?.tag).toEqual({
      type: "STRING",
      enum: ["a", "b"],
      format: "enum",
    });
    expect(declaration?.parameters?.required).toEqual(["root"]);
    expect(declaration?.description).toContain("recursive schema #/$defs/Node cut");
  });

  it("maps type arrays, oneOf, const, allOf and non-string enums into the subset", () => {
    const [declaration] = toGeminiTools([
      tool({
        type: "object",
        properties: {
          maybe: { type: ["string", "null"] },
          either: { oneOf: [{ type: "string" }, { type: "number" }] },
          optional: { anyOf: [{ type: "integer" }, { type: "null" }] },
          fixed: { const: "v1" },
          level: { type: "integer", enum: [1, 2, 3] },
          both: {
            allOf: [
              { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
              { properties: { b: { type: "boolean" } } },
            ],
          },
          free: { type: "object", additionalProperties: { type: "string" } },
          when: { type: "string", format: "date-time", pattern: "^x", minLength: 1 },
        },
      }),
    ]);
    expect(geminiProblems(declaration as never)).toEqual([]);
    const p = declaration?.parameters?.properties ?? {};
    expect(p.maybe).toEqual({ type: "STRING", nullable: true });
    expect(p.either?.anyOf).toEqual([{ type: "STRING" }, { type: "NUMBER" }]);
    expect(p.optional).toEqual({ type: "INTEGER", nullable: true });
    expect(p.fixed).toEqual({ type: "STRING", enum: ["v1"], format: "enum" });
    expect(p.level?.type).toBe("INTEGER");
    expect(p.level?.description).toContain("One of: 1, 2, 3");
    expect(p.both?.properties).toEqual({ a: { type: "STRING" }, b: { type: "BOOLEAN" } });
    expect(p.both?.required).toEqual(["a"]);
    expect(p.free).toEqual({ type: "OBJECT" });
    expect(p.when).toEqual({ type: "STRING", format: "date-time" });
  });

  it("a tool without parameters has no parameters field", () => {
    expect(toGeminiTools([tool({ type: "object" })])[0]).toEqual({ name: "mcp_s_t", description: "d" });
    expect(toGeminiTools([tool({})])[0]?.parameters).toBeUndefined();
  });

  it("a const that is an object without a callable toString (valid JSON) becomes its JSON text", () => {
    const input = { type: "object", properties: { p: { const: { toString: null } } } };
    const [declaration] = toGeminiTools([tool(input)]);
    expect(declaration?.parameters?.properties?.p?.enum).toEqual(['{"toString":null}']);
  });

  it("any JSON-schema-like input converts without throwing into a definition Gemini accepts", () => {
    const leaf = fc.oneof(
      fc.record({
        type: fc.constantFrom("string", "number", "integer", "boolean", "null", "object", "array", "weird"),
      }),
      fc.record({
        type: fc.array(fc.constantFrom("string", "null", "number"), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ enum: fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 4 }) }),
      fc.record({ const: fc.jsonValue() }),
      fc.record({
        $ref: fc.constantFrom("#/$defs/A", "#/$defs/missing", "http://x/y", "#", "#/%E0%A4%A", "#/$defs/%"),
      }),
      fc.jsonValue(),
    );
    const schema = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.record({
          type: fc.constant("object"),
          properties: fc.dictionary(fc.string({ maxLength: 8 }), tie("node"), { maxKeys: 4 }),
          required: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        }),
        fc.record({ type: fc.constant("array"), items: tie("node") }),
        fc.record({ anyOf: fc.array(tie("node"), { maxLength: 3 }) }),
        fc.record({ oneOf: fc.array(tie("node"), { maxLength: 3 }) }),
        fc.record({ allOf: fc.array(tie("node"), { maxLength: 3 }) }),
      ),
    }));
    fc.assert(
      fc.property(schema.node, schema.node, (properties, def) => {
        const input = { type: "object", properties: { p: properties }, $defs: { A: def } };
        const [declaration] = toGeminiTools([tool(input as Record<string, unknown>)]);
        expect(geminiProblems(declaration as never)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
