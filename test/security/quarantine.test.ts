import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { fixturePath } from "../fixtures/servers/index.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDirs } from "../helpers/wait.js";

/**
 * Servers nobody approved: an entry that appears in another host's config file mcp-bridge imports
 * (here Claude Code's `~/.claude.json`, as an installer would add it) is held, listed with no tools
 * and never started, until `mcp-bridge quarantine approve`; a changed definition is held again. The
 * planted server is the catalog fixture, which writes a line to its spawn log each time it starts.
 */
const tempDir = tempDirs("mcp-bridge-quarantine-");

function plantedHome() {
  const home = realpathSync(tempDir());
  const project = join(home, "work");
  mkdirSync(project);
  mkdirSync(join(home, ".config", "mcp-bridge"), { recursive: true });
  // The user's own config: it imports Claude Code's servers and defines one of its own.
  writeFileSync(
    join(home, ".config", "mcp-bridge", "mcp.json"),
    JSON.stringify({
      settings: { imports: ["claude-code"] },
      mcpServers: { mine: { command: process.execPath, args: [fixturePath("catalog")] } },
    }),
  );
  const spawnLog = join(home, "planted-started.log");
  const plant = (extra: string[] = []) =>
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: {
          planted: {
            command: process.execPath,
            args: [fixturePath("catalog"), "--spawn-log", spawnLog, ...extra],
          },
        },
      }),
    );
  return { home, project, spawnLog, plant, env: cliEnv(home) };
}

describe("quarantine of imported servers", () => {
  it("holds a server another host's file gained, starts it once approved, and holds a changed one again", async () => {
    const { project, spawnLog, plant, env } = plantedHome();
    plant();
    const status = await runCli(["status", "--json"], { cwd: project, env });
    const rows = (
      JSON.parse(status.stdout) as { servers: { name: string; state?: string; tools?: number }[] }
    ).servers;
    expect(rows.map((row) => row.name).sort()).toEqual(["mine", "planted"]);
    expect(status.stderr).toContain('Server "planted"');
    expect(status.stderr).toContain("mcp-bridge quarantine approve planted");
    // Listed, never started: no process ran.
    expect(existsSync(spawnLog)).toBe(false);

    const listed = await runCli(["quarantine", "--json"], { cwd: project, env });
    expect(listed.code).toBe(0);
    const held = JSON.parse(listed.stdout) as {
      held: { server: string; file: string; definition: string }[];
    };
    expect(held.held.map((row) => row.server)).toEqual(["planted"]);
    expect(held.held[0]?.file).toMatch(/\.claude\.json$/);
    expect(held.held[0]?.definition).toContain("--spawn-log");

    const approved = await runCli(["quarantine", "approve", "planted"], { cwd: project, env });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("planted");
    const tools = await runCli(["tools", "--json"], { cwd: project, env });
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain("planted");
    expect(readFileSync(spawnLog, "utf8").trim().split("\n").length).toBeGreaterThan(0);

    // The same name with another definition (an extra argument) is a new server to approve.
    plant(["--tools-file", join(project, "none")]);
    const again = await runCli(["quarantine", "--json"], { cwd: project, env });
    expect(
      (JSON.parse(again.stdout) as { held: { server: string }[] }).held.map((row) => row.server),
    ).toEqual(["planted"]);
  }, 90_000);

  it("`quarantine approve NAME` of a server that is not held says so", async () => {
    const { project, plant, env } = plantedHome();
    plant();
    const run = await runCli(["quarantine", "approve", "mine"], { cwd: project, env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Server "mine" is not held. Held: planted');
  });
});

describe("the quarantine setting", () => {
  it("off loads imported servers; all also holds the servers of a host's file used as the main config", async () => {
    const { home, project, plant } = plantedHome();
    plant();
    const base = { cwd: project, homeDir: home, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } };
    const held = await loadConfig(base);
    expect(held.servers.map((server) => server.name)).toEqual(["mine"]);
    expect(held.skipped.map((entry) => [entry.name, entry.kind])).toEqual([["planted", "quarantined"]]);
    const off = await loadConfig({ ...base, settings: { quarantine: "off" } });
    expect(off.servers.map((server) => server.name)).toEqual(["mine", "planted"]);

    // A project's .vscode/mcp.json is the main config here (no mcp.json of mcp-bridge's in the folder).
    mkdirSync(join(project, ".vscode"));
    writeFileSync(
      join(project, ".vscode", "mcp.json"),
      JSON.stringify({ servers: { vscodeServer: { command: "x" } }, settings: { quarantine: "off" } }),
    );
    const loose = await loadConfig(base);
    expect(loose.servers.map((server) => server.name)).toContain("vscodeServer");
    const strict = await loadConfig({ ...base, env: { ...base.env, MCP_BRIDGE_QUARANTINE: "all" } });
    expect(strict.servers.map((server) => server.name)).toEqual([]);
    expect(strict.skipped.map((entry) => entry.kind)).toEqual(["quarantined"]);
  });
});
