import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseKeyValues } from "../../src/util/key-values.js";
import { alive, stdioEntry, waitForExit } from "../fixtures/servers/index.js";
import { cliHome, preloadCliInProcess, runCli, runCliInProcess, spawnCli } from "../helpers/cli.js";
import { pidsIn } from "../helpers/process.js";
import { until } from "../helpers/wait.js";

const { home, env, config } = cliHome({
  calc: stdioEntry("normal"),
  broken: stdioEntry("exits-at-start"),
  off: { ...stdioEntry("normal"), enabled: false },
});

preloadCliInProcess();

/** Server pids a test saw; any still alive after the file (a failed assertion) are killed. */
const seen: number[] = [];
afterAll(() => {
  for (const pid of seen) if (alive(pid)) process.kill(pid, "SIGKILL");
});

describe("key=value arguments", () => {
  it("parses JSON values and keeps the rest as strings", () => {
    expect(
      parseKeyValues(["a=5", "flag=true", 's="5"', "name=Ada Lovelace", 'obj={"x":1}', "empty="]),
    ).toEqual({
      a: 5,
      flag: true,
      s: "5",
      name: "Ada Lovelace",
      obj: { x: 1 },
      empty: "",
    });
    expect(() => parseKeyValues(["novalue"])).toThrow(/key=value/);
  });
});

/**
 * The commands' answers are checked with the CLI's code run in this process (a process per run cost most
 * of this file's time); what is about the process (exit codes and streams of the built CLI, a
 * non-terminal stderr, the bundled examples beside dist/, signals) runs the built CLI as a child.
 */
describe("mcp-bridge CLI (in this process; the built CLI as a child where the process matters)", () => {
  it("status: a table, exit 1 when a server failed, the failure's stderr under --verbose", async () => {
    const run = await runCliInProcess(["status", "--config", config, "--verbose"], { cwd: home, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/calc\s+stdio\s+connected\s+6/);
    expect(run.stdout).toMatch(/broken\s+stdio\s+failed/);
    expect(run.stdout).toContain("fatal: cannot start (fixture)");
    expect(run.stdout).toMatch(/off\s+stdio\s+disabled/);
  });

  it("status --json: one JSON document on stdout, nothing else", async () => {
    const run = await runCliInProcess(["status", "--config", config, "--json"], { cwd: home, env });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as { servers: Record<string, unknown>[] };
    expect(doc.servers.map((s) => s.name)).toEqual(["calc", "broken", "off"]);
    expect(doc.servers[0]).toMatchObject({
      name: "calc",
      transport: "stdio",
      state: "connected",
      tools: 6,
      error: null,
    });
    expect(doc.servers[0]?.protocolVersion).toMatch(/^\d{4}-/);
    expect(doc.servers[0]?.startMs).toBeTypeOf("number");
    expect(doc.servers[0]?.serverInfo).toEqual({ name: "normal", version: "1.0.0" });
    expect(doc.servers[1]?.serverInfo).toBeNull();
    expect(doc.servers[1]).toMatchObject({ state: "failed", error: { code: "SERVER_START_FAILED" } });
    expect(doc.servers[0]?.activity).toBe("running");
    expect(doc.servers[2]).toMatchObject({ state: "disabled", activity: null });
    expect(Object.keys(doc.servers[0] ?? {}).sort()).toEqual(
      [
        "activity",
        "error",
        "name",
        "protocolVersion",
        "sandboxed",
        "serverInfo",
        "startMs",
        "state",
        "tools",
        "transport",
      ].sort(),
    );
  });

  it("status counts the tools that pass the filters, as `tools` does", async () => {
    const filtered = join(home, "filtered.json");
    writeFileSync(
      filtered,
      JSON.stringify({
        mcpServers: { calc: { ...stdioEntry("normal"), tools: { exclude: ["divide", "pid"] } } },
      }),
    );
    const table = await runCliInProcess(["status", "--config", filtered], { cwd: home, env });
    const listed = JSON.parse(
      (await runCliInProcess(["tools", "--json", "-c", filtered], { cwd: home, env })).stdout,
    );
    const count = (listed as { tools: unknown[] }).tools.length;
    expect(count).toBeGreaterThan(0);
    expect(table.stdout).toMatch(new RegExp(`calc\\s+stdio\\s+connected\\s+${count}\\s`));
    expect(table.stdout).toContain(`1/1 servers connected, ${count} tools`);
    const json = JSON.parse(
      (await runCliInProcess(["status", "--json", "-c", filtered], { cwd: home, env })).stdout,
    );
    expect(json.servers[0].tools).toBe(count);
  });

  it("status exits 0 when every enabled server connects", async () => {
    const good = join(home, "good.json");
    writeFileSync(good, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const run = await runCli(["status", "--config", good], { cwd: home, env });
    expect(run.code).toBe(0);
    // stderr is not a terminal here: no progress, no escape codes, nothing at all.
    expect(run.stderr).toBe("");
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("tools with a failing server among good ones: the good tools, a warning, exit 1", async () => {
    const run = await runCliInProcess(["tools", "--config", config, "--json"], { cwd: home, env });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout) as { tools: { server: string }[] };
    expect(new Set(doc.tools.map((t) => t.server))).toEqual(new Set(["calc"]));
    expect(doc.tools).toHaveLength(6);
    expect(run.stderr).toMatch(/Server "broken" is not connected/);
    const table = await runCliInProcess(["tools", "--config", config], { cwd: home, env });
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^NAME\s+SERVER\s+PARAMETERS\s+DESCRIPTION$/m);
    expect(table.stdout).toMatch(/mcp_calc_divide\s+calc\s+a: number/);
  });

  it("tools: table, --server, json and the export formats", async () => {
    const table = await runCliInProcess(["tools", "--config", config, "--server", "calc"], {
      cwd: home,
      env,
    });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/mcp_calc_add\s+calc\s+a: number, b: number\s+Add two numbers/);
    const json = await runCliInProcess(["tools", "--config", config, "--server", "calc", "--json"], {
      cwd: home,
      env,
    });
    const doc = JSON.parse(json.stdout) as { tools: Record<string, unknown>[] };
    expect(doc.tools[0]).toEqual({
      name: "mcp_calc_add",
      server: "calc",
      tool: "add",
      description: "[MCP:calc] Add two numbers",
      inputSchema: expect.objectContaining({ type: "object" }),
    });
    const openai = JSON.parse(
      (
        await runCliInProcess(["tools", "-c", config, "-s", "calc", "--format", "openai", "--json"], {
          cwd: home,
          env,
        })
      ).stdout,
    );
    expect(openai[0]).toMatchObject({ type: "function", function: { name: "mcp_calc_add" } });
    const anthropic = JSON.parse(
      (
        await runCliInProcess(["tools", "-c", config, "-s", "calc", "--format", "anthropic"], {
          cwd: home,
          env,
        })
      ).stdout,
    );
    expect(anthropic[0]).toMatchObject({ name: "mcp_calc_add", input_schema: { type: "object" } });
    const bad = await runCliInProcess(["tools", "-c", config, "--format", "yaml"], { cwd: home, env });
    expect(bad.code).toBe(2);
  });

  it("call: prints the result, parses key=value, exit codes 0/1/2", async () => {
    const ok = await runCliInProcess(["call", "mcp_calc_add", "a=5", "b=3", "-c", config], {
      cwd: home,
      env,
    });
    expect(ok).toMatchObject({ code: 0, stdout: "8\n" });
    const bySlash = await runCliInProcess(
      ["call", "calc/greet", "name=Ada", "--args", '{"polite": true}', "-c", config],
      { cwd: home, env },
    );
    expect(bySlash.stdout).toBe("Good day, Ada.\n");
    const unknown = await runCliInProcess(["call", "mcp_calc_nope", "-c", config, "--json"], {
      cwd: home,
      env,
    });
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      name: "mcp_calc_nope",
      isError: true,
      error: { code: "TOOL_NOT_FOUND" },
    });
    const usage = await runCliInProcess(["call", "mcp_calc_add", "oops", "-c", config], { cwd: home, env });
    expect(usage.code).toBe(2);
    const json = await runCliInProcess(["call", "calc/divide", "a=1", "b=4", "-c", config, "--json"], {
      cwd: home,
      env,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: "calc/divide",
      server: "calc",
      tool: "divide",
      isError: false,
      structuredContent: { quotient: 0.25 },
    });
  });

  it("call failures without a tool result: exit 1 and the error contract; bad usage: exit 2", async () => {
    const slow = join(home, "slow.json");
    writeFileSync(
      slow,
      JSON.stringify({
        mcpServers: {
          slow: stdioEntry("slow-tool"),
          kinds: stdioEntry("content-types"),
          broken: stdioEntry("exits-at-start"),
        },
      }),
    );
    const run = (args: string[]) => runCliInProcess([...args, "-c", slow], { cwd: home, env });
    const timedOut = await run(["call", "slow/sleep", "ms=20000", "--timeout", "300ms", "--json"]);
    expect(timedOut.code).toBe(1);
    expect(Object.keys(JSON.parse(timedOut.stdout)).sort()).toEqual(["error", "isError", "name"]);
    expect(JSON.parse(timedOut.stdout)).toMatchObject({
      name: "slow/sleep",
      isError: true,
      error: { code: "TOOL_TIMEOUT", message: expect.stringContaining("300 ms") },
    });
    const down = await run(["call", "mcp_broken_anything", "--json"]);
    expect(down.code).toBe(1);
    expect(JSON.parse(down.stdout)).toMatchObject({
      isError: true,
      error: { code: "SERVER_UNAVAILABLE", message: expect.stringContaining("cannot start") },
    });
    const noServer = await run(["call", "nope/add"]);
    expect(noServer.code).toBe(1);
    expect(noServer.stdout).toBe("");
    expect(noServer.stderr).toContain('No server named "nope"');
    const toolError = await run(["call", "kinds/fails", "--json"]);
    expect(toolError.code).toBe(1);
    expect(JSON.parse(toolError.stdout)).toMatchObject({
      server: "kinds",
      tool: "fails",
      isError: true,
      text: "the thing went wrong",
    });
    expect((await run(["call", "slow/sleep", "--timeout", "soon"])).code).toBe(2);
    const badArgs = await run(["call", "slow/sleep", "--args", "[1]", "--json"]);
    expect(badArgs.code).toBe(2);
    expect(JSON.parse(badArgs.stdout)).toMatchObject({ error: { code: "USAGE" } });
    expect((await run(["call"])).code).toBe(2);
    const badOption = await run(["status", "--bogus"]);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain("--bogus");
  });

  it("call starts only the server that owns the tool", async () => {
    const run = await runCliInProcess(["call", "mcp_calc_echo", "text=only", "-c", config, "--verbose"], {
      cwd: home,
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("only\n");
    // The failing server was never started, so nothing about it was logged.
    expect(run.stderr).not.toContain("broken");
  });

  it("a missing or malformed config is a usage error (exit 2) naming the file", async () => {
    const missing = await runCliInProcess(["status", "-c", join(home, "nope.json")], { cwd: home, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.json");
    const broken = join(home, "broken.json");
    writeFileSync(broken, '{"mcpServers": {\n  "a": { "command": "x", }\n  oops\n}');
    const parsed = await runCliInProcess(["config", "validate", "-c", broken], { cwd: home, env });
    expect(parsed.code).toBe(2);
    expect(parsed.stderr).toMatch(/broken\.json:\d+:\d+/);
  });

  it("without any config, status/tools/call use the bundled examples and say so on stderr", async () => {
    const status = await runCli(["status"], { cwd: home, env });
    expect(status.code).toBe(0);
    expect(status.stderr).toContain("No config found; using the bundled example servers");
    expect(status.stdout).toMatch(/calculator\s+stdio\s+connected/);
    expect(status.stdout).toMatch(/notes\s+stdio\s+connected/);
    const call = await runCli(["call", "mcp_calculator_add", "a=5", "b=3"], { cwd: home, env });
    expect(call.stdout).toBe("8\n");
    const divide = await runCli(["call", "mcp_calculator_divide", "a=1", "b=0"], { cwd: home, env });
    expect(divide.code).toBe(1);
    expect(divide.stderr).toContain("Cannot divide by zero");
    // Under --json the notice stays on stderr; stdout holds the one document.
    const json = await runCli(["tools", "--json"], { cwd: home, env });
    expect(json.code).toBe(0);
    expect(json.stderr).toContain("No config found");
    expect(json.stderr).toContain(join(home, ".config"));
    const names = (JSON.parse(json.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["mcp_calculator_add", "mcp_notes_create"]));
    const quiet = await runCli(["status", "--quiet", "--json"], { cwd: home, env });
    expect(quiet.stderr).toBe("");
    expect(JSON.parse(quiet.stdout).servers).toHaveLength(2);
  }, 90_000);

  it("config show redacts secrets; paths, schema and validate work", async () => {
    const secretConfig = join(home, "secret.json");
    writeFileSync(
      secretConfig,
      JSON.stringify({
        mcpServers: {
          api: {
            url: "https://user:hunter2-password@example.com/mcp?token=tok-123456",
            headers: { Authorization: "Bearer sk-SECRET-abcdef" },
          },
          local: { command: "node", args: ["x.js"], env: { API_KEY: "sk-LOCAL-999999" } },
          bad: { transport: "carrier-pigeon" },
        },
      }),
    );
    const show = await runCliInProcess(["config", "show", "-c", secretConfig, "--json"], { cwd: home, env });
    expect(show.code).toBe(0);
    for (const secret of ["hunter2-password", "tok-123456", "sk-SECRET-abcdef", "sk-LOCAL-999999"]) {
      expect(show.stdout + show.stderr).not.toContain(secret);
    }
    const doc = JSON.parse(show.stdout) as { servers: { name: string; env?: Record<string, string> }[] };
    expect(doc.servers.find((s) => s.name === "local")?.env).toEqual({ API_KEY: "***" });
    const validate = await runCliInProcess(["config", "validate", "-c", secretConfig], { cwd: home, env });
    expect(validate.code).toBe(1);
    // Said once, in the validation's own list (stdout), not again as a warning.
    const said = validate.stdout + validate.stderr;
    expect(said.split('Server "bad" was skipped').length - 1).toBe(1);
    const schema = JSON.parse((await runCliInProcess(["config", "schema"], { cwd: home, env })).stdout);
    expect(schema.properties.mcpServers).toBeDefined();
    const paths = JSON.parse(
      (await runCliInProcess(["config", "paths", "--json"], { cwd: home, env })).stdout,
    );
    // ./mcp.json, ./mcp.toml, ./.mcp.json, ./.vscode/mcp.json; mcp-bridge's user config (json, toml), VS Code's.
    expect(paths.paths.map((p: { origin: string }) => p.origin)).toEqual([
      "cwd",
      "cwd",
      "cwd",
      "cwd",
      "user",
      "user",
      "user",
    ]);
  });

  it("--help and --version", async () => {
    expect((await runCli(["--help"], { cwd: home, env })).stdout).toContain("Usage: mcp-bridge");
    expect((await runCli(["--version"], { cwd: home, env })).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await runCli(["frobnicate"], { cwd: home, env })).code).toBe(2);
  }, 60_000);

  it("SIGINT while a call runs: the CLI exits 130 and leaves no process of the server tree", async () => {
    const pidsFile = join(home, "pids.json");
    const treeConfig = join(home, "tree.json");
    writeFileSync(
      treeConfig,
      JSON.stringify({
        mcpServers: {
          parent: stdioEntry("spawns-child", {
            env: { PIDS_FILE: pidsFile, SLEEP_STARTED_FILE: join(home, "tree.sleeping") },
          }),
        },
      }),
    );
    const child = spawnCli(["call", "parent/sleep", "ms=20000", "-c", treeConfig], { cwd: home, env });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Bounded generously: on a loaded machine the CLI and its server take seconds to start. The file is
    // read once written whole (it exists, empty, for a moment before).
    await until(() => pidsIn(pidsFile).length === 2, 25_000);
    const [pid = 0, childPid = 0] = pidsIn(pidsFile);
    seen.push(pid, childPid);
    expect(alive(pid) && alive(childPid)).toBe(true);
    await until(() => existsSync(join(home, "tree.sleeping")), 25_000);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    // Reported as what it was: an interruption, not a server that stopped or a call to retry.
    expect(stderr).toContain('Interrupted: the call of "parent/sleep" was cancelled');
    expect(stderr).not.toMatch(/stopped while|retry/i);
    expect(await waitForExit([pid, childPid])).toEqual([]);
  }, 60_000);

  it("SIGTERM with a server that ignores SIGTERM: the CLI exits 143 and still leaves no process", async () => {
    const pidFile = join(home, "stubborn.pid");
    const stubborn = join(home, "stubborn.json");
    writeFileSync(
      stubborn,
      JSON.stringify({
        mcpServers: {
          stubborn: stdioEntry("ignores-sigterm", {
            env: { PID_FILE: pidFile, SLEEP_STARTED_FILE: join(home, "stubborn.sleeping") },
          }),
        },
      }),
    );
    const child = spawnCli(["call", "stubborn/sleep", "ms=20000", "-c", stubborn], { cwd: home, env });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Bounded generously: on a loaded machine the CLI and its server take seconds to start. The file is
    // read once written (it exists, empty, for a moment before).
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 25_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    seen.push(pid);
    expect(alive(pid)).toBe(true);
    await until(() => existsSync(join(home, "stubborn.sleeping")), 25_000);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(await waitForExit([pid])).toEqual([]);
  }, 60_000);

  it("a second SIGINT ends the CLI without the graceful wait, and still no process is left", async () => {
    const pidFile = join(home, "stubborn2.pid");
    const stubborn = join(home, "stubborn2.json");
    writeFileSync(
      stubborn,
      JSON.stringify({
        mcpServers: {
          stubborn: stdioEntry("ignores-sigterm", {
            env: { PID_FILE: pidFile, SLEEP_STARTED_FILE: join(home, "stubborn2.sleeping") },
          }),
        },
      }),
    );
    const child = spawnCli(["call", "stubborn/sleep", "ms=20000", "-c", stubborn], { cwd: home, env });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Bounded generously: on a loaded machine the CLI and its server take seconds to start. The file is
    // read once written (it exists, empty, for a moment before).
    await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", 25_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    seen.push(pid);
    await until(() => existsSync(join(home, "stubborn2.sleeping")), 25_000);
    child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(await waitForExit([pid])).toEqual([]);
  }, 60_000);
});
