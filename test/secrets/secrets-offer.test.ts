import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { runProcess } from "../helpers/process.js";

const TOKEN = "tok-pasted-0123456789abcdef";
const KEY = "sk-pasted-api-key-0123456789";
const STORE = { MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "offer test passphrase" };

function cli(args: readonly string[], home: string, input = "") {
  return runProcess(process.execPath, [CLI, ...args], {
    cwd: home,
    env: cliEnv(home, STORE),
    timeoutMs: 30_000,
    label: `mcp-bridge ${args.join(" ")}`,
    input,
  });
}

/** Pasted secrets moved to the secret store (the encrypted file here; the keychain works alike). */
describe("add and config import --keyring", () => {
  it("add --keyring stores a header's token and a secret env value, writing ${keyring:…} instead", async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    const remote = await cli(
      [
        "add",
        "docs",
        "https://example.com/mcp",
        "-H",
        `Authorization: Bearer ${TOKEN}`,
        "-H",
        "Accept: application/json",
        "--keyring",
        "-c",
        config,
      ],
      home,
    );
    expect(remote.code, remote.stderr).toBe(0);
    const local = await cli(
      [
        "add",
        "files",
        "-e",
        `API_KEY=${KEY}`,
        "-e",
        "ROOT=/tmp",
        "--keyring",
        "-c",
        config,
        "--",
        "node",
        "server.js",
      ],
      home,
    );
    expect(local.code, local.stderr).toBe(0);
    const text = readFileSync(config, "utf8");
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(KEY);
    expect(text).toContain("Bearer ${keyring:docs.Authorization}");
    expect(text).toContain('"API_KEY": "${keyring:files.API_KEY}"');
    expect(text).toContain('"ROOT": "/tmp"');
    expect(text).toContain('"Accept": "application/json"');
    for (const run of [remote, local])
      expect(run.stdout + run.stderr).not.toMatch(new RegExp(`${TOKEN}|${KEY}`));
    expect((await cli(["secrets", "get", "docs.Authorization"], home)).stdout).toBe(`${TOKEN}\n`);
    const shown = JSON.parse((await cli(["config", "validate", "--json", "-c", config], home)).stdout);
    expect(shown).toMatchObject({ valid: true, servers: ["docs", "files"] });
  });

  it("without --keyring and without a terminal, add writes the value as given (a script decides)", async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    const run = await cli(["add", "files", "-e", `API_KEY=${KEY}`, "-c", config, "--", "node", "s.js"], home);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(config, "utf8")).toContain(KEY);
  });

  it("config import --keyring stores the literal secrets of another host's file and prints references", async () => {
    const home = emptyHome();
    mkdirSync(join(home, ".cursor"));
    const cursorFile = join(home, ".cursor", "mcp.json");
    const cursor = JSON.stringify({
      mcpServers: {
        gh: { command: "gh-mcp", env: { GITHUB_TOKEN: KEY, FROM_ENV: "${env:HOME}", LEVEL: "debug" } },
      },
    });
    writeFileSync(cursorFile, cursor);
    const run = await cli(["config", "import", "--from", "cursor", "--keyring", "--json"], home);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.stored).toEqual([
      { server: "gh", table: "env", key: "GITHUB_TOKEN", reference: "${keyring:gh.GITHUB_TOKEN}" },
    ]);
    expect(run.stdout).not.toContain(KEY);
    // Cursor's own file is left as it is: Cursor would not resolve the reference.
    expect(readFileSync(cursorFile, "utf8")).toBe(cursor);
    expect((await cli(["secrets", "get", "gh.GITHUB_TOKEN"], home)).stdout).toBe(`${KEY}\n`);
  });
});
