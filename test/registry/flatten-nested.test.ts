import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flattenParameters, MAX_FLAT_DEPTH } from "../../src/registry/flatten.js";

describe("flattenParameters on nested objects", () => {
  it("lists a nested object's fields under dotted names, required only when every level is", () => {
    const flat = flattenParameters({
      type: "object",
      properties: {
        name: { type: "string" },
        address: {
          type: "object",
          description: "Where",
          properties: {
            city: { type: "string", description: "City" },
            geo: { type: "object", properties: { lat: { type: "number" }, "a.b": { type: "number" } } },
          },
          required: ["city", "geo"],
        },
        options: { type: "object", properties: { verbose: { type: "boolean", default: false } } },
        free: { type: "object" },
      },
      required: ["address"],
    });
    expect(flat).toEqual({
      parameters: [
        { name: "name", type: "string", required: false },
        {
          name: "address.city",
          path: ["address", "city"],
          type: "string",
          required: true,
          description: "City",
        },
        { name: "address.geo.lat", path: ["address", "geo", "lat"], type: "number", required: false },
        { name: "address.geo.a.b", path: ["address", "geo", "a.b"], type: "number", required: false },
        {
          name: "options.verbose",
          path: ["options", "verbose"],
          type: "boolean",
          required: false,
          default: false,
        },
        { name: "free", type: "object", required: false },
      ],
      complete: true,
      omitted: [],
    });
  });

  it("names what a nested field cannot say, and stops at the depth bound", () => {
    let deep: Record<string, unknown> = { type: "object", properties: { leaf: { type: "string" } } };
    for (let level = 0; level < MAX_FLAT_DEPTH + 2; level++) {
      deep = { type: "object", properties: { n: deep } };
    }
    const flat = flattenParameters({
      type: "object",
      properties: {
        deep,
        box: {
          type: "object",
          properties: { either: { anyOf: [{ type: "string" }, { type: "number" }] } },
          additionalProperties: { type: "string" },
        },
      },
    });
    const cut = Array.from({ length: MAX_FLAT_DEPTH }, () => "n").join(".");
    expect(flat.parameters.map((p) => [p.name, p.type])).toEqual([
      [`deep.${cut}`, "object"],
      ["box.either", "string"],
    ]);
    expect(flat.complete).toBe(false);
    expect(flat.omitted).toEqual([
      `"deep.${cut}" is nested deeper than ${MAX_FLAT_DEPTH} levels`,
      '"box" accepts additional properties of any name',
      '"box.either" has no single JSON type (anyOf); treated as string',
    ]);
  });

  it("for any nesting, each scalar field within the bound is one parameter whose path reaches it", () => {
    const leaf = fc.constantFrom({ type: "string" }, { type: "number" }, { type: "boolean" });
    const { schema } = fc.letrec((tie) => ({
      schema: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.record({
          type: fc.constant("object"),
          properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), tie("schema"), { maxKeys: 3 }),
        }),
      ),
    }));
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), schema, { maxKeys: 4 }),
        (properties) => {
          const flat = flattenParameters({ type: "object", properties });
          for (const parameter of flat.parameters) {
            const path = parameter.path ?? [parameter.name];
            expect(path.join(".")).toBe(parameter.name);
            let at: unknown = { properties };
            for (const key of path) at = (at as { properties: Record<string, unknown> }).properties[key];
            const target = at as { type: string; properties?: object };
            expect(target.type).toBe(parameter.type);
            // An object is a parameter only when it has no fields or lies past the bound.
            if (target.type === "object" && Object.keys(target.properties ?? {}).length > 0) {
              expect(path.length).toBeGreaterThan(MAX_FLAT_DEPTH);
            }
          }
          expect(flat.complete).toBe(flat.omitted.length === 0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the tools table", () => {
  it("still adds (+schema) to a tool with a nested object: its signature shows top-level names only", async () => {
    const { McpServer } = await import("@modelcontextprotocol/server");
    const z = await import("zod");
    const { inMemoryServer, startBridge } = await import("../../src/index.js");
    const { toolsDocument } = await import("../../src/apps/daemon/documents.js");
    await using bridge = await startBridge({
      servers: {
        shop: {
          connect: inMemoryServer(() => {
            const mcp = new McpServer({ name: "shop", version: "1.0.0" });
            const ok = async () => ({ content: [] });
            mcp.registerTool("flat", { inputSchema: z.object({ id: z.string() }) }, ok);
            mcp.registerTool("ship", { inputSchema: z.object({ to: z.object({ city: z.string() }) }) }, ok);
            return mcp;
          }),
        },
      },
      catalogCache: false,
      pins: false,
    });
    const answer = toolsDocument(bridge, { format: "table" });
    const names = (answer.document as { tools: { tool: string }[] }).tools.map((t) => t.tool);
    expect(Object.fromEntries(names.map((name, index) => [name, answer.complete?.[index]]))).toEqual({
      flat: true,
      ship: false,
    });
  });
});
