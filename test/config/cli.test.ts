import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";

// The CLI's code without a terminal (what a script or CI sees), in this process with the environment
// and working directory a child would get: these commands start no server, and a process per run cost
// most of this file's time. The CLI as a process is tested in test/cli/.
preloadCliInProcess();
let home: string;
let env: Record<string, string>;
beforeEach(() => {
  home = emptyHome();
  env = cliEnv(home, { MCP_BRIDGE_TRUST_PROJECT: "1" });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

describe("config validate", () => {
  it("counts the servers of every form in one TOML file", async () => {
    const file = join(home, "mixed.toml");
    write(
      file,
      '[mcp.servers]\ncalc = { command = "node" }\n\n[mcp_servers.docs]\ncommand = "docs-server"\n',
    );
    const run = await runCliInProcess(["config", "validate", "--config", file], { cwd: home, env });
    expect(run.stdout).toContain("2 server(s) valid");
    expect(run.code).toBe(0);
  });

  it("a top-level typo: the key named with a suggestion, exit 1", async () => {
    const file = join(home, "typo.json");
    write(file, JSON.stringify({ mcpServer: { a: { command: "node" } } }));
    const run = await runCliInProcess(["config", "validate", "--config", file], { cwd: home, env });
    expect(run.stderr).toContain('unknown top-level key "mcpServer" was ignored; did you mean "mcpServers"?');
    expect(run.stderr).toContain("no server is defined");
    expect(run.code).toBe(1);
  });

  it("lists each skipped entry with its reason and exits 1 (text and --json)", async () => {
    const file = join(home, "skips.json");
    write(
      file,
      JSON.stringify({
        mcpServers: {
          ok: { command: "node" },
          unset: { command: "node", args: ["${MCP_BRIDGE_TEST_NOT_SET}"] },
          bad: { command: "node", timeout: "soon" },
        },
      }),
    );
    const run = await runCliInProcess(["config", "validate", "--config", file], { cwd: home, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/skipped unset: .*MCP_BRIDGE_TEST_NOT_SET/);
    expect(run.stdout).toMatch(/skipped bad: .*"timeout"/);
    const json = await runCliInProcess(["config", "validate", "--config", file, "--json"], {
      cwd: home,
      env,
    });
    const report = JSON.parse(json.stdout);
    expect(json.code).toBe(1);
    expect(report.valid).toBe(false);
    expect(report.servers).toEqual(["ok"]);
    expect(report.skipped.map((s: { name: string; field: string }) => [s.name, s.field])).toEqual([
      ["unset", "args[0]"],
      ["bad", "timeout"],
    ]);
  });
});

describe("status shows entries that could not load", () => {
  const config = () => {
    const file = join(home, "status.json");
    write(
      file,
      JSON.stringify({
        inputs: [{ id: "key", type: "promptString", password: true }],
        mcpServers: {
          off: { command: "node", enabled: false },
          unset: { url: "https://example.com/mcp", headers: { "X-Key": "${MCP_BRIDGE_TEST_NOT_SET}" } },
          asks: { command: "node", env: { KEY: "${input:key}" } },
        },
      }),
    );
    return file;
  };

  it("--json: a row in state invalid per skipped entry, with the reason; exit 1", async () => {
    const run = await runCliInProcess(["status", "--config", config(), "--json"], { cwd: home, env });
    const { servers } = JSON.parse(run.stdout) as {
      servers: {
        name: string;
        state: string;
        transport: string;
        error: { code: string; message: string } | null;
      }[];
    };
    expect(servers.map((s) => [s.name, s.state, s.transport])).toEqual([
      ["off", "disabled", "stdio"],
      ["unset", "invalid", "http"],
      ["asks", "invalid", "stdio"],
    ]);
    expect(servers[1]?.error?.code).toBe("CONFIG_INVALID");
    expect(servers[1]?.error?.message).toContain("MCP_BRIDGE_TEST_NOT_SET");
    // No terminal: the input is not asked for, the entry stays skipped with the reason.
    expect(servers[2]?.error?.message).toContain("${input:key}");
    expect(run.code).toBe(1);
  });

  it("the table shows the invalid rows", async () => {
    const run = await runCliInProcess(["status", "--config", config()], { cwd: home, env });
    expect(run.stdout).toMatch(/unset\s+-\s+invalid\s+.*MCP_BRIDGE_TEST_NOT_SET/);
    expect(run.stdout).toMatch(/asks\s+-\s+invalid/);
    expect(run.code).toBe(1);
  });
});

describe("which config the CLI uses", () => {
  it("./.vscode/mcp.json is used (and named on stderr) instead of the bundled examples", async () => {
    const file = join(home, ".vscode", "mcp.json");
    write(file, JSON.stringify({ servers: { mine: { command: "node", enabled: false } } }));
    const run = await runCliInProcess(["status", "--json"], { cwd: home, env });
    expect(JSON.parse(run.stdout).servers.map((s: { name: string }) => s.name)).toEqual(["mine"]);
    expect(run.stderr).toContain(`Using config ${file}`);
    expect(run.stderr).not.toContain("bundled example");
  });

  it("./mcp.json is not announced", async () => {
    write(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { mine: { command: "node", enabled: false } } }),
    );
    const run = await runCliInProcess(["status", "--json"], { cwd: home, env });
    expect(run.stderr).not.toContain("Using config");
  });

  it("another host's config on the machine: no bundled demo servers, the file named", async () => {
    const cursor = join(home, ".cursor", "mcp.json");
    write(cursor, JSON.stringify({ mcpServers: { theirs: { command: "node" } } }));
    const run = await runCliInProcess(["status", "--json"], { cwd: home, env });
    expect(JSON.parse(run.stdout).servers).toEqual([]);
    expect(run.stderr).toContain(cursor);
    expect(run.stderr).toContain('"imports": ["cursor"]');
  });
});
