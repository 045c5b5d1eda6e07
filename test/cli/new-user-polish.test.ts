import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tokenCounts } from "../../src/apps/cli/chat/view.js";
import { defaultInputsDir, InputStore } from "../../src/apps/cli/input-store.js";
import { ownDescription } from "../../src/apps/cli/tools-view.js";
import { AuditLog } from "../../src/audit/audit-log.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";

// What a new user hits first (issue 37, polish): each test runs the CLI as they would.
preloadCliInProcess();

describe("audit verify", () => {
  it("without FILE checks the config's audit file and its rotated files", async () => {
    const home = emptyHome();
    const file = join(home, "audit.jsonl");
    const log = new AuditLog(file, 600);
    for (let n = 0; n < 8; n++) log.append({ caller: "alice", server: "calc", tool: "add", n });
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {}, settings: { audit: { file: "audit.jsonl" } } }));
    const run = await runCliInProcess(["audit", "verify", "-c", config], { cwd: home, env: cliEnv(home) });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Audit chain intact: 8 records.\n");
    expect(run.code).toBe(0);
  });

  it("without FILE and without an audit setting says how to name one; usage text ends in one period", async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const run = await runCliInProcess(["audit", "verify", "-c", config], { cwd: home, env: cliEnv(home) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the config has no `audit` setting");
    const bare = await runCliInProcess(["audit"], { cwd: home, env: cliEnv(home) });
    expect(bare.stderr).toContain("needs verify [FILE...]. Run");
  });
});

describe("config validate", () => {
  it("says a skipped server's reason once, and checks the audit file's path", async () => {
    const home = emptyHome();
    writeFileSync(join(home, "not-a-folder"), "");
    const config = join(home, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { a: { command: "node" }, b: { url: "ftp://example.com" } },
        settings: { audit: { file: "not-a-folder/audit.jsonl" } },
      }),
    );
    const run = await runCliInProcess(["config", "validate", "-c", config], { cwd: home, env: cliEnv(home) });
    const said = `${run.stdout}${run.stderr}`;
    expect(said.split('"url" must be an http:// or https:// URL').length - 1).toBe(1);
    expect(run.stderr).toContain(`audit file ${join(home, "not-a-folder", "audit.jsonl")}: its folder`);
    expect(run.stderr).toContain("it is not a folder; every call would be denied");
    expect(run.code).toBe(1);
    const json = await runCliInProcess(["config", "validate", "--json", "-c", config], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, audit: { problem: expect.any(String) } });
  });
});

describe("a policy limit without the daemon", () => {
  it("call says the limit counts per process, and how to share one count", async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    const limit = { server: "calc", action: "limit", limit: { perMinute: 1 } };
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { calc: stdioEntry("normal") },
        settings: { policy: { rules: [limit] } },
      }),
    );
    const run = await runCliInProcess(["call", "calc/add", "a=1", "b=2", "-c", config], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(run.stdout.trim()).toBe("3");
    expect(run.stderr).toContain('"limit" rules count calls per process');
    expect(run.stderr).toContain("mcp-bridge daemon start");
  }, 60_000);
});

describe("VS Code inputs", () => {
  function vscodeConfig() {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    const calc = stdioEntry("normal", { env: { CALC_TOKEN: "${input:calc-token}" } });
    writeFileSync(
      config,
      JSON.stringify({
        inputs: [{ type: "promptString", id: "calc-token", description: "Calc token", password: true }],
        servers: { calc: { type: "stdio", ...calc } },
      }),
    );
    return { home, config, env: cliEnv(home) };
  }

  it("list shows a server that uses ${input:...}, as written, without asking", async () => {
    const { home, config, env } = vscodeConfig();
    const run = await runCliInProcess(["list", "-c", config], { cwd: home, env });
    expect(run.stdout).toContain("calc");
    expect(run.stderr).not.toContain("VS Code input prompt");
    const json = await runCliInProcess(["list", "--json", "-c", config], { cwd: home, env });
    expect(JSON.parse(json.stdout).servers.map((s: { name: string }) => s.name)).toEqual(["calc"]);
  });

  it("call uses the remembered answer and does not warn that a terminal would ask", async () => {
    const { home, config, env } = vscodeConfig();
    new InputStore(defaultInputsDir(env), config).remember("calc-token", "remembered-value");
    const run = await runCliInProcess(["call", "calc/add", "a=1", "b=2", "-c", config], {
      cwd: home,
      env,
      tty: true,
    });
    expect(run.stdout.trim()).toBe("3");
    expect(run.stderr).not.toContain("run on a terminal to be asked");
  }, 60_000);
});

describe("chat and describe text", () => {
  it("token counts an endpoint did not report say so; a tool's own description drops the [MCP:server] prefix", () => {
    expect(tokenCounts({ inputTokens: 0, outputTokens: 0 })).toBe("not reported by the endpoint");
    expect(tokenCounts({ inputTokens: 1234, outputTokens: 5 })).toBe("1,234 in, 5 out");
    expect(ownDescription({ server: "calc", description: "[MCP:calc] Add two numbers" })).toBe(
      "Add two numbers",
    );
    expect(ownDescription({ server: "calc", description: "Add" })).toBe("Add");
  });
});
