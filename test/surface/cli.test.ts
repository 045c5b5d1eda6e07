import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";

// The commands' output is what is checked here: the CLI's code runs in this process (a CLI process per
// run cost most of this file's time; cli/cli.test.ts checks the built CLI as a process).
preloadCliInProcess();

const everythingEntry = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

describe("CLI: resources, read, prompts, prompt (server-everything)", () => {
  let home = "";
  let config = "";
  beforeAll(() => {
    home = emptyHome();
    config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: everythingEntry } }));
  });
  const run = (...args: string[]) =>
    runCliInProcess([...args, "-c", config], { cwd: home, env: cliEnv(home) });

  it("resources --json lists resources and templates", async () => {
    const result = await run("resources", "--json");
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      resources: { uri: string; server: string }[];
      templates: { uriTemplate: string }[];
    };
    expect(document.resources.length).toBeGreaterThan(0);
    expect(document.resources[0]?.server).toBe("everything");
    expect(document.templates.map((t) => t.uriTemplate)).toContain(
      "demo://resource/dynamic/text/{resourceId}",
    );
    const table = await run("resources", "--server", "everything");
    expect(table.stdout).toMatch(/^URI\s+SERVER/);
  });

  it("read prints the text; --json gives one document; an unknown URI exits 1 with a typed error", async () => {
    const text = await run("read", "demo://resource/dynamic/text/7");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Resource 7");
    const json = await run("read", "demo://resource/dynamic/blob/1", "--json");
    const document = JSON.parse(json.stdout) as { server: string; text: string; parts: { size?: number }[] };
    expect(document.server).toBe("everything");
    expect(document.text).toMatch(/^\[blob: /);
    expect(document.parts[0]?.size).toBeGreaterThan(0);
    const missing = await run("read", "nowhere://thing", "--json");
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: "RESOURCE_NOT_FOUND" } });
  });

  it("prompts lists exposed names; prompt NAME key=value prints the messages", async () => {
    const list = JSON.parse((await run("prompts", "--json")).stdout) as { prompts: { name: string }[] };
    expect(list.prompts.map((p) => p.name)).toContain("mcp_everything_args-prompt");
    const prompt = await run("prompt", "mcp_everything_args-prompt", "city=Lyon");
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain("user:");
    expect(prompt.stdout).toContain("What's weather in Lyon?");
    const json = JSON.parse(
      (await run("prompt", "everything/args-prompt", "city=Oslo", "--json")).stdout,
    ) as {
      messages: { role: string; text: string }[];
    };
    expect(json.messages[0]).toMatchObject({ role: "user", text: "What's weather in Oslo?" });
    const missing = await run("prompt", "everything/args-prompt", "--json");
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: "INVALID_ARGUMENTS" } });
  });
});

describe("CLI: call of a task tool", () => {
  it("shows the task's status messages live on stderr and the result on stdout", async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: everythingEntry } }));
    const result = await runCliInProcess(
      ["call", "everything/simulate-research-query", "topic=MCP", "-c", config],
      { cwd: home, env: cliEnv(home) },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Research Report: MCP");
    expect(result.stderr).toContain("working: Gathering sources...");
  });
});
