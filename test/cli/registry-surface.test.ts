import { describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCli } from "../helpers/cli.js";

const longServer = "internal_knowledge_base_service_of_the_whole_company_for_every_team";
const { home, env, config } = cliHome({
  undeclared: stdioEntry("tasks-undeclared"),
  [longServer]: stdioEntry("normal"),
});

describe("registry rules seen from the CLI (built, as a child process)", () => {
  it("status --verbose lists the tools that are not exported, with the reason", async () => {
    const text = await runCli(["status", "--config", config, "--verbose"], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("tools of undeclared not exported:");
    expect(text.stdout).toMatch(/research: it requires task-augmented calls/);

    const json = await runCli(["status", "--config", config, "--verbose", "--json"], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    const servers = (JSON.parse(json.stdout) as { servers: { name: string; skippedTools: unknown[] }[] })
      .servers;
    expect(servers.find((s) => s.name === "undeclared")?.skippedTools).toEqual([
      { tool: "research", reason: expect.stringContaining('taskSupport: "required"') },
    ]);
    expect(servers.find((s) => s.name === longServer)?.skippedTools).toEqual([]);
  }, 130_000);

  it("a long server name leaves the tool part readable, and call finds the tool by that name", async () => {
    const tools = await runCli(["tools", "--config", config, "--server", longServer, "--json"], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    const names = (JSON.parse(tools.stdout) as { tools: { name: string; tool: string }[] }).tools;
    const add = names.find((t) => t.tool === "add")?.name ?? "";
    expect(add).toMatch(/^mcp_internal_knowledge_base_service_of_the_.*_add_[0-9a-f]{6}$/);
    const call = await runCli(["call", add, "a=2", "b=3", "--config", config, "--json"], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(JSON.parse(call.stdout)).toMatchObject({ name: add, isError: false, text: "5" });
  }, 130_000);
});
