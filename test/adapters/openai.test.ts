import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromOpenAIStrictArguments, toOpenAITools, toStrictSchema } from "../../src/adapters/openai.js";
import type { JsonSchema, ToolDefinition } from "../../src/registry/tool-definition.js";
import { validateArguments } from "../../src/registry/validate.js";

type Node = Record<string, unknown>;

const definition = (inputSchema: JsonSchema, name = "mcp_s_t"): ToolDefinition => ({
  name,
  server: "s",
  tool: "t",
  description: "[MCP:s] does t",
  inputSchema,
});

/** Every OpenAI strict-mode rule this adapter promises, checked on every node of a produced schema. */
function strictProblems(node: unknown, path = "$"): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => strictProblems(item, `${path}[${index}]`));
  if (!node || typeof node !== "object") return [];
  const schema = node as Node;
  const problems: string[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object")) {
    const keys = Object.keys((schema.properties ?? {}) as object).sort();
    const required = [...((schema.required ?? []) as string[])].sort();
    if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
    if (JSON.stringify(keys) !== JSON.stringify(required))
      problems.push(`${path}: required != all properties`);
  }
  if (schema.type === undefined && schema.anyOf === undefined && schema.$ref === undefined)
    problems.push(`${path}: no type`);
  for (const keyword of [
    "format",
    "minLength",
    "pattern",
    "default",
    "minimum",
    "oneOf",
    "allOf",
    "$schema",
  ]) {
    if (keyword in schema) problems.push(`${path}: keeps "${keyword}"`);
  }
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "properties" || key === "$defs") && value && typeof value === "object") {
      for (const [name, child] of Object.entries(value))
        problems.push(...strictProblems(child, `${path}.${name}`));
    } else if (key === "items" || key === "anyOf") problems.push(...strictProblems(value, `${path}.${key}`));
  }
  return problems;
}

/** Whether a strict-mode property schema accepts null. */
function acceptsNull(schema: unknown): boolean {
  const node = schema as Node;
  if (Array.isArray(node.anyOf)) return node.anyOf.some(acceptsNull);
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.includes("null") && (!Array.isArray(node.enum) || node.enum.includes(null));
}

/** Original optional properties became nullable, on every object at every depth. */
function optionalsNullable(original: Node, strict: Node, path = "$"): string[] {
  const problems: string[] = [];
  const properties = (original.properties ?? {}) as Record<string, Node>;
  const strictProperties = (strict.properties ?? {}) as Record<string, Node>;
  const required = new Set((original.required ?? []) as string[]);
  for (const [name, child] of Object.entries(properties)) {
    const converted = strictProperties[name];
    if (!converted) problems.push(`${path}.${name}: missing`);
    else {
      if (!required.has(name) && !acceptsNull(converted)) problems.push(`${path}.${name}: not nullable`);
      const inner = (Array.isArray(converted.anyOf) ? converted.anyOf[0] : converted) as Node;
      problems.push(...optionalsNullable(child, inner, `${path}.${name}`));
      if (child.items && inner.items)
        problems.push(...optionalsNullable(child.items as Node, inner.items as Node));
    }
  }
  return problems;
}

const leaf: fc.Arbitrary<Node> = fc.oneof(
  fc.record(
    {
      type: fc.constant("string"),
      format: fc.constant("email"),
      minLength: fc.nat(5),
      description: fc.string(),
    },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("string"), enum: fc.constant(["a", "b"]) }),
  fc.record(
    { type: fc.constantFrom("number", "integer"), minimum: fc.integer({ max: 1 }) },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("boolean"), default: fc.boolean() }, { requiredKeys: ["type"] }),
  fc.record({ enum: fc.constant(["x", "y"]) }),
);

const { schema: objectSchemaArb } = fc.letrec<{ schema: Node; value: Node }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    tie("schema"),
    fc.record({ type: fc.constant("array"), items: tie("value") }),
  ),
  schema: fc
    .dictionary(
      fc.string({ unit: fc.constantFrom("a", "b", "c", "d", "_"), minLength: 1, maxLength: 3 }),
      tie("value"),
      {
        minKeys: 1,
        maxKeys: 4,
      },
    )
    .chain((properties) =>
      fc.subarray(Object.keys(properties)).map((required) => ({ type: "object", properties, required })),
    ),
}));

/** A value the model could send under the strict schema, and what the tool should receive. */
function sample(schema: Node, pick: () => number): { sent: unknown; expected: unknown } {
  if (schema.type === "object") {
    const sent: Node = {};
    const expected: Node = {};
    const required = new Set(schema.required as string[]);
    for (const [name, child] of Object.entries(schema.properties as Record<string, Node>)) {
      if (!required.has(name) && pick() % 2 === 0) sent[name] = null;
      else {
        const value = sample(child, pick);
        sent[name] = value.sent;
        expected[name] = value.expected;
      }
    }
    return { sent, expected };
  }
  if (schema.type === "array") {
    const items = Array.from({ length: pick() % 3 }, () => sample(schema.items as Node, pick));
    return { sent: items.map((i) => i.sent), expected: items.map((i) => i.expected) };
  }
  if (Array.isArray(schema.enum)) {
    const value = schema.enum[pick() % schema.enum.length];
    return { sent: value, expected: value };
  }
  const value = { string: "a@b.co", number: 1.5, integer: 2, boolean: true }[schema.type as string];
  return { sent: value, expected: value };
}

describe("toOpenAITools", () => {
  it("maps to Chat Completions function tools with the schema untouched", () => {
    const schema = { type: "object", properties: { q: { type: "string", format: "uri" } }, required: ["q"] };
    const [tool] = toOpenAITools([definition(schema)]);
    expect(tool).toEqual({
      type: "function",
      function: { name: "mcp_s_t", description: "[MCP:s] does t", parameters: schema },
    });
    expect(tool?.function.parameters).toBe(schema);
    expect(toOpenAITools([definition({})])[0]?.function.parameters).toEqual({ type: "object" });
  });

  it("strict: every object closed with all keys required, optional ones nullable, and arguments map back (property)", () => {
    fc.assert(
      fc.property(objectSchemaArb, fc.infiniteStream(fc.nat()), (original, stream) => {
        const [tool] = toOpenAITools([definition(original as JsonSchema)], { strict: true });
        const strict = tool?.function.parameters as Node;
        expect(tool?.function.strict).toBe(true);
        expect(strictProblems(strict)).toEqual([]);
        expect(optionalsNullable(original, strict)).toEqual([]);
        const { sent, expected } = sample(original, () => stream.next().value as number);
        // What the model sends under the strict schema is valid there, and valid for the tool once mapped.
        expect(validateArguments(strict, sent)).toEqual([]);
        const mapped = fromOpenAIStrictArguments(definition(original as JsonSchema), sent as Node);
        expect(mapped).toEqual(expected);
        expect(validateArguments(original as JsonSchema, mapped)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("strict: nullable enums, consts, $refs and unions; oneOf becomes anyOf", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        Point: {
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x"],
        },
      },
      properties: {
        mode: { enum: ["fast", "slow"] },
        fixed: { const: 3 },
        at: { $ref: "#/$defs/Point", description: "where" },
        either: { oneOf: [{ type: "string" }, { type: "number" }] },
        kind: { type: "string" },
      },
      required: ["kind"],
    };
    const { schema: strict, problems } = toStrictSchema(schema);
    expect(problems).toEqual([]);
    expect(strictProblems(strict)).toEqual([]);
    const properties = strict.properties as Record<string, Node>;
    expect(properties.mode).toEqual({ type: ["string", "null"], enum: ["fast", "slow", null] });
    expect(properties.fixed).toEqual({ type: ["integer", "null"], enum: [3, null] });
    expect(properties.at).toEqual({
      description: "where",
      anyOf: [{ $ref: "#/$defs/Point" }, { type: "null" }],
    });
    expect(properties.either).toEqual({ anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] });
    expect(properties.kind).toEqual({ type: "string" });
    expect((strict.$defs as Record<string, Node>).Point?.required).toEqual(["x", "y"]);
    const entry = definition(schema);
    expect(
      fromOpenAIStrictArguments(entry, {
        kind: "k",
        mode: null,
        fixed: null,
        either: null,
        at: { x: 1, y: null },
      }),
    ).toEqual({ kind: "k", at: { x: 1 } });
    // A required property that allows null keeps its null.
    const nullableRequired = definition({
      type: "object",
      properties: { v: { type: ["string", "null"] } },
      required: ["v"],
    });
    expect(fromOpenAIStrictArguments(nullableRequired, { v: null })).toEqual({ v: null });
  });

  it("strict: a schema strict mode cannot express goes out plain with strict: false", () => {
    const cases: [JsonSchema, RegExp][] = [
      [{ type: "object", properties: { options: { type: "object" } } }, /options: a free-form object/],
      [
        { type: "object", properties: { map: { type: "object", additionalProperties: { type: "string" } } } },
        /map/,
      ],
      [{ type: "object", properties: { any: { description: "anything" } } }, /any: has no type/],
      [{ type: "object", properties: { both: { allOf: [{ type: "string" }] } } }, /uses "allOf"/],
      [{ type: "object", properties: { list: { type: "array" } } }, /without "items"/],
      [{ anyOf: [{ type: "object" }, { type: "object" }] }, /top level is a union/],
    ];
    for (const [schema, reason] of cases) {
      expect(toStrictSchema(schema).problems.join("\n")).toMatch(reason);
      const [tool] = toOpenAITools([definition(schema)], { strict: true });
      expect(tool?.function).toMatchObject({ strict: false });
      expect(tool?.function.parameters).toEqual({ type: "object", ...schema });
    }
    // A tool without arguments is fine in strict mode.
    expect(toStrictSchema({ type: "object" })).toEqual({
      schema: { type: "object", properties: {}, required: [], additionalProperties: false },
      problems: [],
    });
  });

  it("caches per definition: 10,000 entries convert once and come back identical", () => {
    const entries = Array.from({ length: 10_000 }, (_, i) =>
      definition(
        {
          type: "object",
          properties: { a: { type: "string" }, b: { type: "integer", minimum: 0 } },
          required: ["a"],
        },
        `t_${i}`,
      ),
    );
    const first = toOpenAITools(entries, { strict: true });
    const second = toOpenAITools(entries, { strict: true });
    expect(second).toHaveLength(10_000);
    for (let i = 0; i < entries.length; i += 997) expect(second[i]).toBe(first[i]);
    expect(toOpenAITools(entries)[0]?.function.strict).toBeUndefined();
  });
});

describe("fromOpenAIStrictArguments", () => {
  it("passes unknown keys through, `__proto__` included, and leaves non-objects alone", () => {
    const entry = definition({ type: "object", properties: { a: { type: "string" } } });
    const args = JSON.parse('{"a":null,"__proto__":{"polluted":true},"extra":null}') as Record<
      string,
      unknown
    >;
    const mapped = fromOpenAIStrictArguments(entry, args);
    expect(Object.keys(mapped)).toEqual(["__proto__", "extra"]);
    expect(Object.getPrototypeOf(mapped)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(fromOpenAIStrictArguments(entry, [] as never)).toEqual([]);
  });
});
