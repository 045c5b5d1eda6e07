import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import module from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/apps/cli/command-table.js";
import { cliEnv, emptyHome, runCli, runCliInProcess } from "../helpers/cli.js";

let home: string;
let env: Record<string, string>;

beforeAll(() => {
  home = emptyHome();
  env = cliEnv(home);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const run = (args: string[]) => runCli(args, { cwd: home, env });
/** Help, usage errors and `list` start nothing: run in this process (the built CLI is checked below). */
const usage = (args: string[]) => runCliInProcess(args, { cwd: home, env });

describe("per-command help and usage errors", () => {
  it("every command has its own --help and `help CMD` with its options and an example", async () => {
    for (const command of COMMANDS) {
      const viaFlag = await usage([command.name, "--help"]);
      expect(viaFlag.code, command.name).toBe(0);
      expect(viaFlag.stdout).toContain(`Usage: mcp-bridge ${command.name}`);
      expect(viaFlag.stdout).toContain(`Examples:\n  mcp-bridge ${command.name}`);
      for (const flag of Object.keys(command.flags)) expect(viaFlag.stdout).toContain(`--${flag}`);
      const viaHelp = await usage(["help", command.name]);
      expect(viaHelp.code).toBe(0);
      expect(viaHelp.stdout).toBe(viaFlag.stdout);
    }
  }, 60_000);

  // Node 22.1+ only: Node 20 has no compile cache.
  const compileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";
  it.skipIf(!compileCache)(
    "the built CLI keeps Node's compiled code in the user's cache folder",
    async () => {
      const folder = join(home, ".cache", "mcp-bridge", "compile");
      rmSync(folder, { recursive: true, force: true });
      expect((await run(["--version"])).code).toBe(0);
      expect(readdirSync(folder).length).toBeGreaterThan(0);
      rmSync(folder, { recursive: true, force: true });
      const off = await runCli(["--version"], {
        cwd: home,
        env: { ...env, NODE_DISABLE_COMPILE_CACHE: "1" },
      });
      expect(off.code).toBe(0);
      expect(existsSync(folder)).toBe(false);
    },
  );

  it("call --help (the built CLI) lists call's options, not other commands'", async () => {
    const help = await run(["call", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--timeout DURATION");
    expect(help.stdout).not.toContain("--format");
    expect(help.stdout).not.toContain("--from");
  });

  it("unknown commands and options get a readable 'did you mean', exit 2", async () => {
    const command = await usage(["stauts"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('Unknown command "stauts". Did you mean "status"?');
    const option = await usage(["tools", "--sever", "calc"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain(
      'Unknown option "--sever" for `mcp-bridge tools`. Did you mean --server?',
    );
    // Node's own wording ("To specify a positional argument starting with a '-' ...") is not shown.
    expect(option.stderr).not.toContain("positional argument");
    const help = await usage(["help", "cal"]);
    expect(help.code).toBe(2);
    expect(help.stderr).toContain('Did you mean "call"?');
  });

  it("an option another command takes is an error here, not silently ignored", async () => {
    const format = await usage(["status", "--format", "json"]);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('Unknown option "--format" for `mcp-bridge status`');
    const from = await usage(["config", "paths", "--timeout", "5s"]);
    expect(from.code).toBe(2);
  });

  it("a positional the command does not take is an error (exit 2)", async () => {
    const status = await usage(["status", "extra"]);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('`mcp-bridge status` takes no arguments, got "extra"');
    const read = await usage(["read", "a://x", "b://y"]);
    expect(read.code).toBe(2);
    expect(read.stderr).toContain('unexpected "b://y"');
    const sub = await usage(["auth", "logn", "x"]);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('Did you mean "login"?');
    const missing = await usage(["call"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("`mcp-bridge call` needs TOOL");
  });

  it("a string option without its value says which value it needs", async () => {
    const bare = await usage(["call", "x", "--timeout"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("Option --timeout needs a value: --timeout DURATION");
    const next = await usage(["tools", "--server", "--json"]);
    expect(next.code).toBe(2);
    expect(next.stdout).toContain('"code": "USAGE"');
  });

  it("--json usage errors are one JSON document on stdout", async () => {
    const result = await usage(["status", "--bogus", "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.code).toBe("USAGE");
  });
});

describe("one config loading for every command", () => {
  it("config show describes the config status would start (the bundled example when none is found)", async () => {
    const show = await run(["config", "show", "--json"]);
    expect(show.code).toBe(0);
    const doc = JSON.parse(show.stdout) as { file: string | null; servers: { name: string }[] };
    expect(doc.file).toMatch(/examples[\\/]mcp\.json$/);
    const status = JSON.parse((await run(["status", "--json"])).stdout) as { servers: { name: string }[] };
    expect(doc.servers.map((s) => s.name)).toEqual(status.servers.map((s) => s.name));
    expect(show.stderr).toContain("No config found");
  }, 30_000);
});

describe("list", () => {
  it("lists the configured servers without starting any (a server that cannot start is listed)", async () => {
    const file = join(home, "list.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          broken: { command: "/nonexistent/server-binary", args: ["--flag"] },
          remote: { url: "https://example.com/mcp?token=tok-SECRET-1", enabled: false },
        },
      }),
    );
    const run = await usage(["list", "-c", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/broken\s+stdio\s+yes\s+\/nonexistent\/server-binary --flag/);
    expect(run.stdout).toMatch(/remote\s+http\s+no/);
    expect(run.stdout).not.toContain("tok-SECRET-1");
    const json = JSON.parse((await usage(["list", "-c", file, "--json"])).stdout);
    expect(json.servers.map((s: { name: string }) => s.name)).toEqual(["broken", "remote"]);
  });
});
