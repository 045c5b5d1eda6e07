import { afterAll, describe, expect, it } from "vitest";
import { type HttpFixture, startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCliInProcess } from "../helpers/cli.js";

/** `list SERVER`, `--http-url` and completion of server and tool names, against real fixture servers. */

const { home, env, config } = cliHome({ calc: stdioEntry("normal"), broken: stdioEntry("exits-at-start") });
const run = (...args: string[]) => runCliInProcess([...args, "-c", config], { cwd: home, env });
const fixtures: HttpFixture[] = [];
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close();
});

describe("list SERVER", () => {
  it("starts that server alone and lists its tools as signatures with their descriptions", async () => {
    const result = await run("list", "calc");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("add(a: number, b: number)");
    expect(result.stdout).toContain("greet(name: string, polite?: boolean)");
    expect(result.stdout).toContain("Add two numbers");
    expect(result.stdout).not.toContain("[MCP:");
    const json = JSON.parse((await run("list", "calc", "--json")).stdout);
    expect(json.tools.find((t: { tool: string }) => t.tool === "add").signature).toBe(
      "add(a: number, b: number)",
    );
  });

  it("an unknown server gets a did-you-mean; a failed one says so", async () => {
    const unknown = await run("list", "clac");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('"calc"');
    const failed = await run("list", "broken");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Server "broken" could not be started');
  });
});

describe("--http-url (mcporter's name for --http)", () => {
  it("uses a Streamable HTTP server given on the command line", async () => {
    const web = await startHttpFixture("normal");
    fixtures.push(web);
    const result = await runCliInProcess(["tools", "--http-url", web.url, "--name", "web"], {
      cwd: home,
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("mcp_web_add");
  });
});

describe("completion offers server and tool names", () => {
  it("servers from the config, tools as server.tool from the last live list; the scripts ask for them", async () => {
    expect((await run("__complete", "servers")).stdout.split("\n")).toContain("calc");
    // A start saves the tool list; completion reads it back without starting anything.
    expect((await run("tools", "--server", "calc")).code).toBe(0);
    const tools = await run("__complete", "tools");
    expect(tools.code).toBe(0);
    expect(tools.stdout.split("\n")).toContain("calc.add");
    for (const shell of ["bash", "zsh", "fish"]) {
      const script = await runCliInProcess(["completion", shell], { cwd: home, env });
      expect(script.stdout).toContain("__complete tools");
      expect(script.stdout).toContain("__complete servers");
    }
  });
});
