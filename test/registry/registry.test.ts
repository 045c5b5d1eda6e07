import { describe, expect, it } from "vitest";
import { matchesToolFilter } from "../../src/registry/filter.js";
import { flattenParameters } from "../../src/registry/flatten.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { CallStats } from "../../src/registry/stats.js";
import { validateArguments } from "../../src/registry/validate.js";

const noFilter = { include: [], exclude: [] };
const object = { type: "object" };
const tools = (...names: string[]) => names.map((name) => ({ name, inputSchema: object }));

describe("ToolRegistry", () => {
  it("skips malformed tools with a warning naming server and tool, and keeps the rest", () => {
    const reg = new ToolRegistry({ toolNameFormat: "mcp_{server}_{tool}", descriptionPrefix: "" });
    const { definitions, warnings } = reg.setServerTools("srv", noFilter, [
      { inputSchema: object },
      { name: "bad_schema", inputSchema: "nope" },
      { name: "ok", inputSchema: object },
      { name: "ok", inputSchema: object },
      null,
      { name: "also_ok", description: "fine", inputSchema: object },
    ]);
    expect(definitions.map((d) => d.tool)).toEqual(["ok", "also_ok"]);
    expect(warnings).toHaveLength(4);
    expect(warnings.every((w) => w.includes('Server "srv"'))).toBe(true);
    expect(warnings.some((w) => w.includes('"bad_schema"') && w.includes("inputSchema"))).toBe(true);
    expect(warnings.some((w) => w.includes('duplicate tool "ok"'))).toBe(true);
  });

  it("registers 5,000 tools", () => {
    const reg = new ToolRegistry({ toolNameFormat: "mcp_{server}_{tool}", descriptionPrefix: "" });
    const tools = Array.from({ length: 5000 }, (_, i) => ({ name: `tool_${i}`, inputSchema: object }));
    expect(reg.setServerTools("big", noFilter, tools).definitions).toHaveLength(5000);
    expect(reg.get("mcp_big_tool_4999")?.tool).toBe("tool_4999");
  });

  it("skips a tool whose name is one of the host's own, with a warning", () => {
    const reg = new ToolRegistry({
      toolNameFormat: "{tool}",
      descriptionPrefix: "",
      reservedNames: ["read_file"],
    });
    const { definitions, warnings } = reg.setServerTools("fs", noFilter, [
      { name: "read_file", inputSchema: object },
      { name: "write_file", inputSchema: object },
    ]);
    expect(definitions.map((d) => d.name)).toEqual(["write_file"]);
    expect(warnings[0]).toContain("host's own tools");
  });

  it("applies include/exclude globs and the host's filter callback to original names", () => {
    expect(matchesToolFilter({ include: ["get_*"], exclude: [] }, "get_user")).toBe(true);
    expect(matchesToolFilter({ include: ["get_*"], exclude: [] }, "set_user")).toBe(false);
    expect(matchesToolFilter({ include: ["*"], exclude: ["*admin*"] }, "get_admin_token")).toBe(false);
    expect(matchesToolFilter({ include: [], exclude: ["a.b"] }, "axb")).toBe(true);
    const reg = new ToolRegistry({
      toolNameFormat: "{server}__{tool}",
      descriptionPrefix: "",
      filter: ({ tool }) => !tool.startsWith("danger"),
    });
    const { definitions } = reg.setServerTools("s", { include: [], exclude: ["hidden"] }, [
      { name: "visible", inputSchema: object },
      { name: "hidden", inputSchema: object },
      { name: "danger_zone", inputSchema: object },
    ]);
    expect(definitions.map((d) => d.name)).toEqual(["s__visible"]);
  });

  const make = (logger?: { warn: (m: string) => void }) =>
    new ToolRegistry({
      toolNameFormat: "mcp_{server}_{tool}",
      descriptionPrefix: "[MCP:{server}] ",
      ...(logger ? { logger: { debug() {}, info() {}, error() {}, warn: logger.warn } } : {}),
    });

  it("handles 5,000 tools with malformed ones mixed in, keeping order and logging each problem once", () => {
    const logged: string[] = [];
    const reg = make({ warn: (message) => logged.push(message) });
    const raw: unknown[] = [];
    for (let i = 0; i < 5000; i++) {
      if (i % 500 === 1) raw.push({ name: 42, inputSchema: object });
      else if (i % 500 === 2) raw.push({ name: `t${i}`, inputSchema: [] });
      else if (i % 500 === 3) raw.push({ name: "t0", inputSchema: object });
      else
        raw.push({
          name: `t${i}`,
          description: `tool ${i}`,
          inputSchema: { type: "object", properties: {} },
        });
    }
    const { definitions, warnings } = reg.setServerTools("big", noFilter, raw);
    expect(definitions).toHaveLength(5000 - 30);
    expect(warnings).toHaveLength(30);
    expect(warnings.filter((w) => w.includes("#1:") && w.includes("no name"))).toHaveLength(1);
    expect(warnings.some((w) => w.includes('"t2"') && w.includes("inputSchema"))).toBe(true);
    expect(definitions.slice(0, 3).map((d) => d.tool)).toEqual(["t0", "t4", "t5"]);
    reg.setServerTools("other", noFilter, tools("x"));
    expect(logged).toHaveLength(30);
  });

  it("lists servers in declared order and keeps definition objects while tools are unchanged", () => {
    const reg = make();
    reg.declareServers(["first", "second"]);
    reg.setServerTools("second", noFilter, tools("b"));
    reg.setServerTools("first", noFilter, tools("a2", "a1"));
    expect(reg.list().map((d) => d.name)).toEqual(["mcp_first_a2", "mcp_first_a1", "mcp_second_b"]);
    const before = reg.get("mcp_first_a1");
    reg.setServerTools("first", noFilter, tools("a2", "a1"));
    expect(reg.get("mcp_first_a1")).toBe(before);
    reg.setServerTools("first", noFilter, [{ name: "a1", description: "changed", inputSchema: object }]);
    expect(reg.get("mcp_first_a1")).not.toBe(before);
    expect(reg.get("mcp_first_a1")?.description).toBe("[MCP:first] changed");
  });

  it("carries title, outputSchema and annotations, and describes a tool without a description", () => {
    const reg = make();
    const outputSchema = { type: "object", properties: { n: { type: "number" } } };
    const [entry, bare] = reg.setServerTools("s", noFilter, [
      { name: "t", title: "Counter", inputSchema: object, outputSchema, annotations: { readOnlyHint: true } },
      { name: "bare", description: "  ", inputSchema: object },
    ]).definitions;
    expect(entry).toMatchObject({ title: "Counter", outputSchema, annotations: { readOnlyHint: true } });
    expect(entry?.description).toBe("[MCP:s] Counter");
    expect(bare?.description).toBe("[MCP:s] bare");
  });
});

describe("flattenParameters", () => {
  it("lists simple parameters with type, description, required, enum and default", () => {
    const flat = flattenParameters({
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        units: { type: "string", enum: ["c", "f"], default: "c" },
        days: { type: ["integer", "null"] },
      },
      required: ["city"],
    });
    expect(flat.complete).toBe(true);
    expect(flat.parameters).toEqual([
      { name: "city", type: "string", description: "City name", required: true },
      { name: "units", type: "string", enum: ["c", "f"], default: "c", required: false },
      { name: "days", type: "integer", required: false },
    ]);
  });

  it("says so instead of guessing for anyOf and $ref", () => {
    const flat = flattenParameters({
      type: "object",
      properties: {
        target: { anyOf: [{ type: "string" }, { type: "number" }] },
        ref: { $ref: "#/$defs/Thing" },
        nested: { type: "object", properties: { x: { type: "number" } } },
      },
    });
    expect(flat.complete).toBe(false);
    expect(flat.omitted.join("\n")).toMatch(/target.*anyOf/);
    expect(flat.omitted.join("\n")).toMatch(/ref.*\$ref/);
    expect(flat.omitted.join("\n")).not.toMatch(/nested/);
  });

  it("flags what a flat list cannot say: unions of types, arrays of objects, open maps, top-level unions", () => {
    const flat = flattenParameters({
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, description: "labels" },
        rows: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
        either: { type: ["string", "number"] },
        level: { enum: ["low", "high"] },
      },
      required: ["tags", "missing"],
      additionalProperties: { type: "string" },
    });
    expect(flat.parameters).toEqual([
      { name: "tags", type: "array", description: "labels", required: true },
      { name: "rows", type: "array", required: false },
      { name: "either", type: "string", required: false },
      { name: "level", type: "string", enum: ["low", "high"], required: false },
    ]);
    expect(flat.complete).toBe(false);
    expect(flat.omitted).toEqual([
      "the schema accepts additional properties of any name",
      '"rows" is an array of objects',
      '"either" has no single JSON type (type ["string","number"]); treated as string',
    ]);
    expect(flattenParameters({ anyOf: [{ type: "object" }] }).omitted).toEqual([
      'the schema uses "anyOf" at the top level',
    ]);
    expect(flattenParameters({ type: "array" }).complete).toBe(false);
    expect(flattenParameters({ type: "object" })).toEqual({ parameters: [], complete: true, omitted: [] });
  });
});

describe("validateArguments", () => {
  it("lists every bad field without calling the server", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" }, mode: { enum: ["x", "y"] } },
      required: ["a", "b"],
    };
    expect(validateArguments(schema, { a: 1, b: 2 })).toEqual([]);
    const issues = validateArguments(schema, { a: "one", mode: "z" });
    expect(issues.map((i) => i.path).sort()).toEqual(["a", "b", "mode"]);
  });

  it("gives dotted paths for nested fields, follows $ref, and catches 2020-12-only keywords", () => {
    const schema = {
      type: "object",
      $defs: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
      properties: {
        at: { $ref: "#/$defs/Point" },
        list: { type: "array", items: { type: "integer" } },
        "a/b": { type: "string" },
      },
      additionalProperties: false,
    };
    const issues = validateArguments(schema, { at: {}, list: [1, "2"], "a/b": 3, extra: true });
    expect(issues.map((i) => i.path).sort()).toEqual(["", "a/b", "at.x", "list.1"]);
    expect(issues.find((i) => i.path === "at.x")?.message).toMatch(/required/);
    const tuple = {
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }] } },
    };
    expect(validateArguments(tuple, { pair: ["ok"] })).toEqual([]);
    const [issue] = validateArguments(tuple, { pair: [1] });
    expect(issue?.message).toContain("must be string");
  });

  it("honours a draft-07 `$schema`, and does not hold an unusable schema against the arguments", () => {
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "number" } },
    };
    expect(validateArguments(draft7, { n: "x" }).map((i) => i.path)).toEqual(["n"]);
    expect(validateArguments({ type: "object", properties: { r: { $ref: "#/nowhere" } } }, { r: 1 })).toEqual(
      [],
    );
  });
});

describe("CallStats", () => {
  it("counts calls, errors and timeouts with latency percentiles per tool and server", () => {
    const stats = new CallStats();
    for (let i = 1; i <= 100; i++)
      stats.record("s", "mcp_s_t", i, i === 50 ? "timeout" : i % 10 === 0 ? "error" : "ok");
    const snapshot = stats.snapshot();
    expect(snapshot.tools.mcp_s_t).toMatchObject({
      calls: 100,
      errors: 9,
      timeouts: 1,
      p50Ms: 50,
      p95Ms: 95,
      maxMs: 100,
    });
    expect(snapshot.servers.s?.calls).toBe(100);
  });
});

describe("matchesToolFilter", () => {
  it("matches exact names and `*` globs anywhere, treats other characters literally, exclude wins", () => {
    const f = (include: string[], exclude: string[] = []) => ({ include, exclude });
    expect(matchesToolFilter(f([]), "anything")).toBe(true);
    expect(matchesToolFilter(f(["read_file"]), "read_file")).toBe(true);
    expect(matchesToolFilter(f(["read_file"]), "read_files")).toBe(false);
    expect(matchesToolFilter(f(["*_file"]), "write_file")).toBe(true);
    expect(matchesToolFilter(f(["a*c*e"]), "abcde")).toBe(true);
    expect(matchesToolFilter(f(["a*c*e"]), "abcd")).toBe(false);
    expect(matchesToolFilter(f(["(x)+[y]?"]), "(x)+[y]?")).toBe(true);
    expect(matchesToolFilter(f(["*"]), "multi\nline")).toBe(true);
    expect(matchesToolFilter(f(["read_*"], ["read_secret"]), "read_secret")).toBe(false);
    expect(matchesToolFilter(f([], ["*"]), "x")).toBe(false);
  });
});

describe("tools the bridge cannot call", () => {
  it("skips a task-required tool of a server without task support, with its reason", () => {
    const reg = new ToolRegistry({ toolNameFormat: "mcp_{server}_{tool}", descriptionPrefix: "" });
    const tool = (name: string, taskSupport?: string) => ({
      name,
      inputSchema: { type: "object" },
      ...(taskSupport ? { execution: { taskSupport } } : {}),
    });
    const all = [tool("plain"), tool("optional", "optional"), tool("research", "required")];
    const { definitions, warnings } = reg.setServerTools("s", { include: [], exclude: [] }, all, {
      toolTasks: false,
    });
    expect(definitions.map((d) => d.tool)).toEqual(["plain", "optional"]);
    expect(reg.resolve("s/research")).toBeUndefined();
    expect(reg.skipped("s")).toEqual([
      { tool: "research", reason: expect.stringContaining("task-augmented") },
    ]);
    expect(warnings).toEqual([expect.stringContaining('skipped tool "research"')]);
    // A server that runs tool calls as tasks: every tool is callable.
    reg.setServerTools("s", { include: [], exclude: [] }, all, { toolTasks: true });
    expect(reg.forServer("s").map((d) => d.tool)).toEqual(["plain", "optional", "research"]);
    expect(reg.skipped("s")).toEqual([]);
    reg.setServerTools("s", { include: [], exclude: [] }, all, { toolTasks: false });
    reg.removeServer("s");
    expect(reg.skipped("s")).toEqual([]);
  });
});
