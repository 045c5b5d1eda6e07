import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bridgeSelfCommand } from "../../src/config/self-entry.js";
import { loadConfig } from "../../src/index.js";
import { cliEnv, runCli } from "../helpers/cli.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-self-entry-");

describe("an entry that runs mcp-bridge's own serve/attach", () => {
  it("is recognized by every spelling a host config uses", () => {
    const selves = [
      { command: "mcp-bridge", args: ["serve", "--stdio"] },
      { command: "mcp-bridge", args: ["attach"] },
      { command: "/usr/local/bin/mcp-bridge", args: ["-c", "/x/mcp.json", "attach"] },
      { command: "C:\\npm\\mcp-bridge.cmd", args: ["serve", "--stdio"] },
      { command: "npx", args: ["-y", "mcp-bridge", "attach"] },
      { command: "npx", args: ["mcp-bridge@0.1.0", "serve", "--stdio"] },
      { command: "node", args: ["/home/me/src/mcp-bridge/bin/mcp-bridge.js", "serve", "--stdio"] },
      { command: "/home/me/src/mcp-bridge/bin/mcp-bridge.js", args: ["attach"] },
      { command: "node", args: ["/opt/bridge/dist/src/apps/cli/bin.js", "serve", "--stdio"] },
      { command: ["mcp-bridge", "attach"] },
    ];
    for (const entry of selves) expect(bridgeSelfCommand(entry), JSON.stringify(entry)).toBeDefined();
    const others = [
      { command: "mcp-bridge", args: ["call", "calc", "add"] },
      { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
      { command: "node", args: ["/x/my-mcp-bridge-server.js", "serve"] },
      { command: "uvx", args: ["mcp-bridge-tools", "serve"] },
      { url: "http://127.0.0.1:3000/mcp" },
    ];
    for (const entry of others) expect(bridgeSelfCommand(entry), JSON.stringify(entry)).toBeUndefined();
  });

  it("in a project .mcp.json (the README's line for Claude Code): skipped with one warning, never asked about", async () => {
    const home = realpathSync(tempDir());
    const project = join(home, "app");
    mkdirSync(project);
    writeFileSync(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          bridge: { command: "mcp-bridge", args: ["serve", "--stdio"] },
          team: { command: "team-cmd" },
        },
      }),
    );
    const asked: string[] = [];
    const config = await loadConfig({
      cwd: project,
      env: { HOME: home },
      homeDir: home,
      admitProjectServer: (request) => {
        asked.push(request.name);
        return true;
      },
    });
    expect(asked).toEqual(["team"]);
    expect(config.servers.map((server) => server.name)).toEqual(["team"]);
    const warnings = config.warnings.filter((warning) => warning.kind === "self-reference");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain(
      'Server "bridge" runs mcp-bridge itself (mcp-bridge serve --stdio)',
    );
    expect(config.skipped).toEqual([expect.objectContaining({ name: "bridge", kind: "self-reference" })]);
  });

  it("imported from Claude Code's ~/.claude.json (`claude mcp add bridge -- mcp-bridge attach`): skipped", async () => {
    const home = realpathSync(tempDir());
    const project = join(home, "app");
    mkdirSync(project);
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: { memory: { command: "memory-cmd" } },
        projects: { [project]: { mcpServers: { bridge: { command: "mcp-bridge", args: ["attach"] } } } },
      }),
    );
    const file = join(home, "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({ settings: { imports: ["claude-code"], quarantine: "off" }, mcpServers: {} }),
    );
    const config = await loadConfig({ path: file, cwd: project, env: { HOME: home }, homeDir: home });
    expect(config.servers.map((server) => server.name)).toEqual(["memory"]);
    expect(config.skipped.map((entry) => [entry.name, entry.kind])).toEqual([["bridge", "self-reference"]]);
  });

  it("does not make the CLI ask for consent: `status` in the untrusted project says why it was skipped", async () => {
    const home = realpathSync(tempDir());
    const project = join(home, "app");
    mkdirSync(project);
    writeFileSync(
      join(project, ".mcp.json"),
      JSON.stringify({ mcpServers: { bridge: { command: "mcp-bridge", args: ["serve", "--stdio"] } } }),
    );
    const run = await runCli(["status", "--json"], { cwd: project, env: cliEnv(home) });
    expect(run.stderr).not.toContain("PROJECT_NOT_TRUSTED");
    expect(run.stderr).toContain("mcp-bridge never serves itself");
    const rows = (JSON.parse(run.stdout) as { servers: { name: string; error?: unknown }[] }).servers;
    expect(rows).toEqual([
      expect.objectContaining({
        name: "bridge",
        error: expect.objectContaining({ message: expect.stringContaining("itself") }),
      }),
    ]);
  });

  it("`config validate` of the host's own file is valid: the entry is listed as the host's, exit 0", async () => {
    const home = realpathSync(tempDir());
    const file = join(home, "claude.mcp.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { bridge: { command: "mcp-bridge", args: ["serve", "--stdio"] } } }),
    );
    const json = await runCli(["config", "validate", "-c", file, "--json"], { cwd: home, env: cliEnv(home) });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: true, skipped: [{ name: "bridge" }] });
    const text = await runCli(["config", "validate", "-c", file], { cwd: home, env: cliEnv(home) });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("for the host bridge");
    // A broken entry beside it still makes the file invalid.
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { bridge: { command: "mcp-bridge", args: ["attach"] }, bad: { url: 3 } },
      }),
    );
    const broken = await runCli(["config", "validate", "-c", file, "--json"], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(broken.code).toBe(1);
  });
});
