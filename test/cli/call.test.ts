import { describe, expect, it } from "vitest";
import { parseKeyValuesFor } from "../../src/util/key-values.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCli } from "../helpers/cli.js";

const { home, env, config } = cliHome({ calc: stdioEntry("normal") });

describe("key=value converted by the tool's inputSchema", () => {
  const schema = {
    type: "object",
    properties: {
      id: { type: "string" },
      n: { type: "number" },
      flag: { type: ["boolean", "string"] },
      mode: { enum: ["1", "2"] },
      any: {},
    },
  };
  it("a string parameter receives the text as written; others their parsed value", () => {
    expect(
      parseKeyValuesFor(["id=5", "n=5", "flag=true", "mode=1", "any=5", 'id2="x"', "id=true"], schema),
    ).toEqual({ id: "true", n: 5, flag: true, mode: "1", any: 5, id2: "x" });
    expect(parseKeyValuesFor(["id=007", "flag=maybe"], schema)).toEqual({ id: "007", flag: "maybe" });
  });

  it('the built CLI sends "5" to a string parameter', async () => {
    const run = await runCli(["call", "calc/echo", "text=5", "-c", config], { cwd: home, env });
    expect(run.stderr).not.toContain("error");
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("5");
  });
});

describe("result limit on the command line", () => {
  const long = "x".repeat(9000);
  it("--max-chars N cuts the printed result; --full prints it whole", async () => {
    const cut = await runCli(["call", "calc/echo", `text=${long}`, "--max-chars", "100", "-c", config], {
      cwd: home,
      env,
    });
    expect(cut.code).toBe(0);
    expect(cut.stdout.length).toBeLessThan(400);
    const full = await runCli(["call", "calc/echo", `text=${long}`, "--full", "-c", config], {
      cwd: home,
      env,
    });
    expect(full.code).toBe(0);
    expect(full.stdout).toContain(long);
    const bad = await runCli(["call", "calc/echo", "--max-chars", "lots", "-c", config], { cwd: home, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-chars must be a whole number");
  });
});
