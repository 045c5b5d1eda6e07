import { describe, expect, it } from "vitest";
import { matchesToolFilter } from "../../src/registry/filter.js";
import { flattenParameters } from "../../src/registry/flatten.js";
import { ToolRegistry } from "../../src/registry/registry.js";
import { CallStats } from "../../src/registry/stats.js";
import { validateArguments } from "../../src/registry/validate.js";

const noFilter = { include: [], exclude: [] };
const object = { type: "object" };

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

  it("says so instead of guessing for anyOf, $ref and nested objects", () => {
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
    expect(flat.omitted.join("\n")).toMatch(/nested.*nested object/);
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
      p50Ms: 51,
      p95Ms: 96,
      maxMs: 100,
    });
    expect(snapshot.servers.s?.calls).toBe(100);
  });
});
