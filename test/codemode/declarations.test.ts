import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { ToolEntry } from "../../src/bridge/api.js";
import { buildApi } from "../../src/codemode/declarations.js";
import { toIdentifier, uniqueIdentifiers } from "../../src/codemode/identifiers.js";
import { schemaToType } from "../../src/codemode/schema-types.js";

function entry(server: string, tool: string, extra: Partial<ToolEntry> = {}): ToolEntry {
  return {
    name: `${server}_${tool}`,
    server,
    tool,
    description: `Does ${tool}`,
    inputSchema: { type: "object" },
    call: async () => ({ text: "", content: [], isError: false }),
    flatParameters: () => ({ parameters: [] }) as never,
    ...extra,
  } as ToolEntry;
}

/** Type-checks a program against declarations; returns the diagnostics' messages. */
function typeErrors(declarations: string, program: string): string[] {
  const files = new Map([
    ["api.d.ts", declarations],
    ["program.ts", `export {};\n${program}`],
  ]);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile;
  host.getSourceFile = (name, version) =>
    files.has(name)
      ? ts.createSourceFile(name, files.get(name) as string, version)
      : read.call(host, name, version);
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  const program_ = ts.createProgram(["api.d.ts", "program.ts"], options, host);
  return ts.getPreEmitDiagnostics(program_).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("JSON Schema to TypeScript types", () => {
  it("maps the common constructs exactly", () => {
    expect(schemaToType({ type: "string" })).toBe("string");
    expect(schemaToType({ type: "integer" })).toBe("number");
    expect(schemaToType({ enum: ["a", "b", 3, null] })).toBe('"a" | "b" | 3 | null');
    expect(schemaToType({ const: "x" })).toBe('"x"');
    expect(schemaToType({ type: ["string", "null"] })).toBe("string | null");
    expect(schemaToType({ type: "string", nullable: true })).toBe("string | null");
    expect(schemaToType({ type: "array", items: { type: ["string", "number"] } })).toBe(
      "(string | number)[]",
    );
    expect(schemaToType({ oneOf: [{ type: "string" }, { type: "number" }] })).toBe("string | number");
    expect(schemaToType({ type: "object", additionalProperties: { type: "number" } })).toBe(
      "{ [key: string]: number }",
    );
    expect(
      schemaToType({
        type: "object",
        properties: { a: { type: "string" } },
        required: ["a"],
        additionalProperties: false,
      }),
    ).toBe("{\n  a: string;\n}");
  });

  it("widens what TypeScript cannot say, never narrows", () => {
    expect(schemaToType({ type: "array", prefixItems: [{ type: "string" }] })).toBe("unknown[]");
    expect(schemaToType({ $ref: "https://example.com/schema" })).toBe("unknown");
    expect(schemaToType({ not: { type: "string" } })).toBe("unknown");
    expect(schemaToType({ enum: [{ a: 1 }] })).toBe("unknown");
    expect(schemaToType({ anyOf: [{ type: "string" }, {}] })).toBe("unknown");
    expect(schemaToType({ type: "madeup" })).toBe("unknown");
    // An open object keeps its extra keys.
    expect(schemaToType({ type: "object", properties: { a: { type: "string" } } })).toContain(
      "[key: string]: unknown;",
    );
  });

  it("expands local $refs and turns a recursive one into unknown", () => {
    const schema = {
      type: "object",
      $defs: {
        node: {
          type: "object",
          properties: { value: { type: "number" }, next: { $ref: "#/$defs/node" } },
          required: ["value"],
          additionalProperties: false,
        },
      },
      properties: { head: { $ref: "#/$defs/node" } },
      required: ["head"],
      additionalProperties: false,
    };
    const type = schemaToType(schema);
    expect(type).toContain("value: number;");
    expect(type).toContain("next?: unknown;");
  });

  it("keeps a description from closing its doc comment", () => {
    const type = schemaToType({
      type: "object",
      properties: { a: { type: "string", description: "evil */ declare const x: 1; /*" } },
    });
    expect(type).not.toContain("evil */");
  });

  it("property: every generated type is valid TypeScript and type-checks", () => {
    const leaf = fc.oneof(
      fc.constant({ type: "string" }),
      fc.constant({ type: "number" }),
      fc.constant({ type: "boolean" }),
      fc.constant({ type: "null" }),
      fc.constant({ type: ["string", "null"] }),
      fc.constant({ enum: ["a", "b*/", 'q"uote'] }),
      fc.constant({}),
      fc.constant({ $ref: "#/$defs/missing" }),
    );
    const schema = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.record({ type: fc.constant("array"), items: tie("node") }),
        fc.record({ oneOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
        fc.record({
          type: fc.constant("object"),
          properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie("node"), { maxKeys: 3 }),
          additionalProperties: fc.boolean(),
        }),
      ),
    })).node;
    const declarations: string[] = [];
    fc.assert(
      fc.property(schema, (s) => {
        declarations.push(`declare const v${declarations.length}: ${schemaToType(s)};`);
      }),
      { numRuns: 150 },
    );
    // One compile for all of them: each must parse and type-check.
    expect(typeErrors(declarations.join("\n"), "")).toEqual([]);
  }, 120_000);
});

describe("the API of a catalog", () => {
  it("maps names to valid, unique identifiers, whatever the order", () => {
    expect(toIdentifier("git-hub")).toBe("git_hub");
    expect(toIdentifier("2fa")).toBe("_2fa");
    expect(toIdentifier("delete")).toBe("_delete");
    const ids = uniqueIdentifiers(["a-b", "a.b", "a_b"]);
    expect(new Set(ids.values()).size).toBe(3);
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 8 }), { maxLength: 12 }), (names) => {
        const forward = uniqueIdentifiers(names);
        const backward = uniqueIdentifiers([...names].reverse());
        expect([...forward.entries()].sort()).toEqual([...backward.entries()].sort());
        expect(new Set(forward.values()).size).toBe(names.length);
        for (const id of forward.values()) expect(id).toMatch(/^[A-Za-z_$][\w$]*$/);
      }),
      { numRuns: 200 },
    );
  });

  it("declares a namespace per server and a typed function per tool that type-checks a real call", () => {
    const api = buildApi([
      entry("git-hub", "create.issue", {
        title: "Create an issue",
        inputSchema: {
          type: "object",
          properties: { title: { type: "string" }, labels: { type: "array", items: { type: "string" } } },
          required: ["title"],
        },
      }),
      entry("git-hub", "create-issue"),
      entry("files", "stat", {
        inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        outputSchema: { type: "object", properties: { size: { type: "number" } }, required: ["size"] },
      }),
    ]);
    const text = api.declarations();
    expect(api.tools.map((t) => t.path)).toEqual([
      "files.stat",
      "git_hub.create_issue",
      "git_hub.create_issue_2",
    ]);
    expect(
      typeErrors(
        text,
        `async function f() {
      const s: number = (await tools.files.stat({ path: "/x" })).size;
      const r = await tools.git_hub.create_issue_2({ title: "t", labels: ["a"] });
      const t: string = r.text;
      await tools.git_hub.create_issue({});
    }`,
      ),
    ).toEqual([]);
    expect(
      typeErrors(text, `async function f() { await tools.git_hub.create_issue_2({ title: 1 }); }`),
    ).not.toEqual([]);
    // Same catalog in another order: the same text.
    expect(buildApi([...api.tools].reverse().map((t) => t.entry)).declarations()).toBe(text);
    expect(api.find("git-hub/create-issue")?.path).toBe("git_hub.create_issue");
  }, 120_000);
});

describe("the API cache", () => {
  it("keeps the API while the tool list is the same and rebuilds it on toolsChanged or a new list", async () => {
    const { apiCache } = await import("../../src/codemode/api-cache.js");
    let list = [entry("a", "one")];
    let changed: (() => void) | undefined;
    const source = {
      tools: () => list,
      call: async () => ({ text: "", content: [], isError: false }),
      searchTools: () => [],
      on: (_event: string, listener: () => void) => {
        changed = listener;
        return () => undefined;
      },
    } as unknown as Parameters<typeof apiCache>[0];
    const api = apiCache(source);
    const first = api();
    expect(api()).toBe(first);
    list = [...list, entry("a", "two")];
    const second = api();
    expect(second).not.toBe(first);
    expect(second.tools.map((t) => t.path)).toEqual(["a.one", "a.two"]);
    changed?.();
    expect(api()).not.toBe(second);
  });
});
