import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-claude-code-");

/** A home with Claude Code's ~/.claude.json (user and local scope, plus its own keys) and a project with .mcp.json. */
function claudeCodeSetup() {
  const home = realpathSync(tempDir());
  const project = join(home, "work", "app");
  mkdirSync(project, { recursive: true });
  const claudeJson = join(home, ".claude.json");
  writeFileSync(
    claudeJson,
    JSON.stringify({
      numStartups: 12,
      installMethod: "npm",
      autoUpdates: true,
      tipsHistory: { a: 1 },
      userID: "abc",
      firstStartTime: "2026-01-01",
      oauthAccount: { emailAddress: "x@example.com" },
      hasCompletedOnboarding: true,
      mcpServers: { user: { command: "user-cmd" }, shared: { command: "from-user" } },
      projects: {
        [project]: {
          allowedTools: [],
          mcpServers: { local: { command: "local-cmd" }, both: { command: "from-local" } },
        },
        [join(home, "elsewhere")]: { mcpServers: { other: { command: "not-here" } } },
      },
    }),
  );
  writeFileSync(
    join(project, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        team: { command: "team-cmd" },
        shared: { command: "from-project" },
        both: { command: "from-project" },
      },
    }),
  );
  return { home, project, claudeJson, env: { HOME: home } };
}

const commands = (servers: readonly { name: string; transport: string }[]) =>
  Object.fromEntries(
    servers.map((server) => [server.name, (server as unknown as { command: string }).command]),
  );

describe("Claude Code scopes", () => {
  const expected = {
    local: "local-cmd",
    both: "from-local",
    team: "team-cmd",
    shared: "from-project",
    user: "user-cmd",
  };

  it("in a project with .mcp.json: local > project > user, as Claude Code shows them", async () => {
    const { home, project, env } = claudeCodeSetup();
    const config = await loadConfig({ cwd: project, env, homeDir: home });
    expect(commands(config.servers)).toEqual(expected);
    expect(config.warnings).toEqual([]);
  });

  it("--config ~/.claude.json loads the same servers for the folder, with no warning", async () => {
    const { home, project, claudeJson, env } = claudeCodeSetup();
    const config = await loadConfig({ path: claudeJson, cwd: project, env, homeDir: home });
    expect(commands(config.servers)).toEqual(expected);
    expect(config.warnings).toEqual([]);
  });

  it("the project .mcp.json servers still need consent; refused ones leave the others loaded", async () => {
    const { home, project, claudeJson, env } = claudeCodeSetup();
    for (const path of [undefined, claudeJson]) {
      const asked: string[] = [];
      const config = await loadConfig({
        ...(path ? { path } : {}),
        cwd: project,
        env,
        homeDir: home,
        admitProjectServer: (request) => {
          asked.push(request.name);
          return false;
        },
      });
      expect(asked.sort()).toEqual(["shared", "team"]);
      expect(commands(config.servers)).toEqual({
        local: "local-cmd",
        both: "from-local",
        user: "user-cmd",
        shared: "from-user",
      });
      expect(config.skipped.map((entry) => entry.name).sort()).toEqual(["team"]);
    }
  });
});
