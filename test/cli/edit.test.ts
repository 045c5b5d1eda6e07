import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addServer, removeServer } from "../../src/config/edit.js";
import { loadConfig } from "../../src/config/load.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

const JSONC = `// my servers
{
  "mcpServers": {
    // the calculator
    "calc": { "command": "node", "args": ["calc.js"] },
    "web": { "url": "https://example.com/mcp" } // remote
  },
  "settings": { "callTimeout": "20s" }
}
`;

const CODEX = `# Codex config
model = "o3"

[mcp_servers.calc]
command = "node"
args = ["calc.js"]

[mcp_servers.calc.env]
KEY = "1"

# the docs server
[mcp_servers.docs]
url = "https://example.com/mcp"
`;

const TABLES = `[mcp]
callTimeout = "20s"

# servers
[mcp.servers.calc]
command = "node"
args = ["calc.js"]
`;

async function namesOf(text: string, extension: string): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), "mcp-bridge-edit-")), `c.${extension}`);
  writeFileSync(file, text);
  const config = await loadConfig({ path: file, env: {} });
  return config.servers.map((s) => s.name);
}

describe("editing a config's text", () => {
  it("JSONC: add and remove keep every comment and leave the rest byte for byte", async () => {
    const added = addServer(JSONC, "json", "memory", { command: "npx", args: ["-y", "server-memory"] });
    expect(added).toContain("// the calculator");
    expect(added).toContain("// remote");
    expect(added.startsWith(JSONC.slice(0, JSONC.indexOf('"web"')))).toBe(true);
    expect(await namesOf(added, "json")).toEqual(["calc", "web", "memory"]);
    expect(removeServer(added, "json", "memory")).toBe(JSONC);
    // The comment line above a removed server goes with it; the rest stays as written.
    expect(removeServer(JSONC, "json", "calc")).toBe(JSONC.replace(/ {4}\/\/ the calculator\n.*\n/, ""));
    expect(removeServer(JSONC, "json", "nope")).toBeUndefined();
  });

  it("TOML (Codex form): a new [mcp_servers.NAME] table; remove cuts the table and its sub-tables only", async () => {
    const added = addServer(CODEX, "toml", "my server", {
      command: "npx",
      args: ["-y", "x"],
      env: { A: "b" },
    });
    expect(added.startsWith(CODEX.trimEnd())).toBe(true);
    expect(await namesOf(added, "toml")).toEqual(["calc", "docs", "my server"]);
    const removed = removeServer(CODEX, "toml", "calc") as string;
    expect(removed).toBe(
      `# Codex config\nmodel = "o3"\n\n# the docs server\n[mcp_servers.docs]\nurl = "https://example.com/mcp"\n`,
    );
    expect(await namesOf(removed, "toml")).toEqual(["docs"]);
    expect(removeServer(added, "toml", "my server")).toBe(CODEX);
  });

  it("TOML ([mcp.servers] form): the new server uses the file's own form", async () => {
    const added = addServer(TABLES, "toml", "memory", { command: "npx" });
    expect(added).toContain("[mcp.servers.memory]");
    expect(added).toContain("# servers");
    expect(await namesOf(added, "toml")).toEqual(["calc", "memory"]);
    expect(await namesOf(removeServer(added, "toml", "calc") as string, "toml")).toEqual(["memory"]);
  });
});

describe("mcp-bridge add / remove (built CLI)", () => {
  it("creates the user config, refuses a duplicate without --force, never prints a secret, removes", async () => {
    const home = emptyHome();
    const env = cliEnv(home);
    const added = await runCli(
      ["add", "memory", "--env", "TOKEN=s3cret", "--json", "--", "npx", "-y", "srv"],
      {
        cwd: home,
        env,
      },
    );
    expect(added.code).toBe(0);
    expect(added.stdout).not.toContain("s3cret");
    const document = JSON.parse(added.stdout);
    expect(document).toMatchObject({ created: true, name: "memory", server: { env: { TOKEN: "***" } } });
    const file = document.file as string;
    expect(file).toBe(join(home, ".config", "mcp-bridge", "mcp.json"));
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.memory).toEqual({
      command: "npx",
      args: ["-y", "srv"],
      env: { TOKEN: "s3cret" },
    });
    expect(statSync(file).mode & 0o077).toBe(0);
    const again = await runCli(["add", "memory", "--", "npx"], { cwd: home, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("--force");
    const remote = await runCli(
      ["add", "docs", "--url", "https://example.com/mcp", "--header", "Authorization=Bearer x"],
      {
        cwd: home,
        env,
      },
    );
    expect(remote.code).toBe(0);
    expect(remote.stdout).not.toContain("Bearer x");
    const unknown = await runCli(["remove", "memroy"], { cwd: home, env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('did you mean "memory"?');
    const removed = await runCli(["remove", "memory"], { cwd: home, env });
    expect(removed.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["docs"]);
  });

  it("edits a TOML file named by --config, keeping its comments", async () => {
    const home = emptyHome();
    const file = join(home, "config.toml");
    writeFileSync(file, CODEX);
    const run = await runCli(["add", "memory", "-c", file, "--", "npx", "-y", "srv"], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(run.code).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text.startsWith(CODEX.trimEnd())).toBe(true);
    expect(text).toContain("[mcp_servers.memory]");
  });
});
