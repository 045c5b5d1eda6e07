import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/index.js";
import { expandHome } from "../../src/util/home-path.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, runCli } from "../helpers/cli.js";
import { tempDirs } from "../helpers/wait.js";

// Hosts start mcp-bridge without a shell: a `~` in their args or env reaches it as written.

const tempDir = tempDirs("mcp-bridge-home-path-");

/** A fresh home whose user config (~/.config/mcp-bridge/mcp.json) has one working server. */
function homeWithUserConfig() {
  const home = realpathSync(tempDir());
  mkdirSync(join(home, ".config", "mcp-bridge"), { recursive: true });
  writeFileSync(
    join(home, ".config", "mcp-bridge", "mcp.json"),
    JSON.stringify({ mcpServers: { normal: stdioEntry("normal") } }),
  );
  const elsewhere = join(home, "project");
  mkdirSync(elsewhere);
  return { home, elsewhere };
}

describe("a leading ~ in the paths mcp-bridge is given", () => {
  it("expands ~ and ~/..., and leaves every other path alone (property, 200 runs)", () => {
    expect(expandHome("~", "/h")).toBe("/h");
    expect(expandHome("~/a/b.json", "/h")).toBe("/h/a/b.json");
    expect(expandHome("~other/a", "/h")).toBe("~other/a");
    expect(expandHome("a/~/b", "/h")).toBe("a/~/b");
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.startsWith("~")),
        (path) => expandHome(path, "/h") === path,
      ),
      { numRuns: 200 },
    );
  });

  it("--config ~/... given without a shell names the file in the home, not ./~/...", async () => {
    const { home, elsewhere } = homeWithUserConfig();
    const run = await runCli(["list", "--json", "--config", "~/.config/mcp-bridge/mcp.json"], {
      cwd: elsewhere,
      env: cliEnv(home),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('"normal"');
  });

  it("MCP_BRIDGE_CONFIG=~/... (a host's env block) too", async () => {
    const { home, elsewhere } = homeWithUserConfig();
    const env = { HOME: home, MCP_BRIDGE_CONFIG: "~/.config/mcp-bridge/mcp.json" };
    const config = await loadConfig({ cwd: elsewhere, env, homeDir: home });
    expect(config.servers.map((server) => server.name)).toEqual(["normal"]);
  });

  it("docs/hosts.md's Codex entry, started as Codex starts it (no shell), serves the user's servers", async () => {
    const { home, elsewhere } = homeWithUserConfig();
    const doc = readFileSync("docs/hosts.md", "utf8");
    const block = /```toml\n(# ~\/\.codex\/config\.toml[\s\S]*?)```/.exec(doc)?.[1] ?? "";
    writeFileSync(join(home, ".codex-config.toml"), block);
    const entry = (parseToml(block) as { mcp_servers: Record<string, { command: string; args: string[] }> })
      .mcp_servers.bridge;
    expect(entry?.command).toBe("mcp-bridge");
    const client = new Client({ name: "codex-like", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, ...(entry?.args ?? [])],
        env: cliEnv(home),
        cwd: elsewhere,
        stderr: "pipe",
      }),
    );
    try {
      const names = (await client.listTools(undefined, { timeout: 60_000 })).tools.map((t) => t.name);
      expect(names).toContain("normal_add");
    } finally {
      await client.close();
    }
  }, 60_000);
});
