import { describe, expect, it } from "vitest";
import { parameterRows, typeLabel } from "../../src/apps/cli/schema-view.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCli } from "../helpers/cli.js";

const { home, env, config } = cliHome({ calc: stdioEntry("normal") });

describe("parameter type labels", () => {
  it("show unions and enums whole, never one of their types", () => {
    expect(typeLabel({ type: ["boolean", "string"] })).toBe("boolean|string");
    expect(typeLabel({ anyOf: [{ type: "number" }, { type: "null" }] })).toBe("number|null");
    expect(typeLabel({ enum: ["fast", "slow"] })).toBe('"fast"|"slow"');
    expect(typeLabel({ type: "array", items: { type: "string" } })).toBe("string[]");
    expect(
      parameterRows({
        type: "object",
        properties: { flag: { type: ["boolean", "string"], description: "on or a word" } },
        required: ["flag"],
      }),
    ).toEqual([{ name: "flag", type: "boolean|string", required: true, description: "on or a word" }]);
  });
});

describe("tools NAME / describe NAME (built CLI)", () => {
  it("prints one tool's full description, parameters and schema", async () => {
    const run = await runCli(["tools", "calc/greet", "-c", config], { cwd: home, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("(calc/greet)");
    expect(run.stdout).toMatch(/name\s+string\s+yes\s+Who to greet/);
    expect(run.stdout).toMatch(/polite\s+boolean\s+no/);
    expect(run.stdout).toContain("Input schema:");
    const viaDescribe = await runCli(["describe", "calc/greet", "-c", config, "--json"], { cwd: home, env });
    expect(viaDescribe.code).toBe(0);
    const doc = JSON.parse(viaDescribe.stdout) as {
      tool: { tool: string; inputSchema: { properties: object } };
    };
    expect(doc.tool.tool).toBe("greet");
    expect(Object.keys(doc.tool.inputSchema.properties)).toEqual(["name", "polite"]);
    const unknown = await runCli(["tools", "calc/gret", "-c", config], { cwd: home, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No tool named");
  });
});
