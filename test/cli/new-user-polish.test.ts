import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../src/audit/audit-log.js";
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
