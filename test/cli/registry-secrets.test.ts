import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";
import { startTestRegistry, type TestRegistry } from "../helpers/mcp-registry.js";
import { TmuxSession } from "../helpers/tmux.js";

/**
 * `add REGISTRY-NAME` and the entry's secret values (`isSecret`): with `--keyring` (or typed on a
 * terminal, without echo) they go to the secret store and the file gets `${keyring:SERVER.KEY}`;
 * nothing is stored unless the entry is written, and a value is never printed.
 */

preloadCliInProcess();
const STORE = { MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "registry secrets test" };
const SECRET = "sk-weather-0123456789abcdef";
const WEATHER = "io.github.example/weather-mcp";
const REFERENCE = "${keyring:weather-mcp.WEATHER_API_KEY}";

let registry: TestRegistry;
const homes: string[] = [];
beforeAll(async () => {
  registry = await startTestRegistry();
});
afterAll(async () => {
  await registry.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A home with an empty config, the secret store in an encrypted file, and `uvx` on PATH. */
function setup() {
  const home = emptyHome();
  homes.push(home);
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "uvx"), "");
  chmodSync(join(bin, "uvx"), 0o755);
  const file = join(home, "mcp.json");
  writeFileSync(file, '{ "mcpServers": {} }\n');
  const env = { ...cliEnv(home, STORE), PATH: bin };
  const run = (...args: string[]) => runCliInProcess(args, { cwd: home, env });
  const add = (...args: string[]) => run("add", "-c", file, "--registry", registry.base, WEATHER, ...args);
  const servers = () =>
    JSON.parse(readFileSync(file, "utf8")).mcpServers as Record<string, Record<string, unknown>>;
  return { home, file, env, run, add, servers };
}

describe("add REGISTRY-NAME: secret values", () => {
  it("--keyring moves a --var secret to the store and writes ${keyring:…}", async () => {
    const { add, run, servers, file } = setup();
    const result = await add("--var", `WEATHER_API_KEY=${SECRET}`, "--keyring", "--yes", "--json");
    expect(result.code, result.stderr).toBe(0);
    expect(servers()["weather-mcp"]?.env).toEqual({ WEATHER_API_KEY: REFERENCE });
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(JSON.parse(result.stdout).keyring).toEqual(["weather-mcp.WEATHER_API_KEY"]);
    expect(result.stderr).toContain("goes to the secret store as weather-mcp.WEATHER_API_KEY");
    expect(result.stderr).not.toContain("Set WEATHER_API_KEY in the environment");
    const stored = await run("secrets", "get", "weather-mcp.WEATHER_API_KEY");
    expect(stored.stdout).toBe(`${SECRET}\n`);
  });

  it("stores nothing when the entry is not written (--dry-run), and never prints a --var secret", async () => {
    const { add, run, servers } = setup();
    const dry = await add("--var", `WEATHER_API_KEY=${SECRET}`, "--keyring", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(servers()).toEqual({});
    expect((await run("secrets", "list", "--json")).stdout).not.toContain("weather-mcp");
    // Without --keyring and without a terminal a script's value is written as given, but not shown.
    const plain = await add("--var", `WEATHER_API_KEY=${SECRET}`, "--yes");
    expect(plain.code, plain.stderr).toBe(0);
    expect(servers()["weather-mcp"]?.env).toEqual({ WEATHER_API_KEY: SECRET });
    expect(plain.stdout + plain.stderr).not.toContain(SECRET);
  });

  it("masks a --var secret passed as an argument in what it shows before writing", async () => {
    const { run, file, servers } = setup();
    registry.publish({
      name: "io.github.example/token-arg",
      description: "a secret as a named argument",
      version: "1.0.0",
      packages: [
        {
          registryType: "pypi",
          identifier: "token-arg",
          version: "1.0.0",
          transport: { type: "stdio" },
          packageArguments: [{ type: "named", name: "--token", isSecret: true, isRequired: true }],
        },
      ],
    });
    const args = ["add", "-c", file, "--registry", registry.base, "io.github.example/token-arg"];
    const result = await run(...args, "--var", `token=${SECRET}`, "--dry-run");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("runs: uvx token-arg@1.0.0 --token ***");
    expect(result.stderr).not.toContain(SECRET);
    expect(servers()).toEqual({});
  });

  it("without a value and without a terminal the secret stays ${VAR}, even with --keyring", async () => {
    const { add, servers } = setup();
    const result = await add("--keyring", "--yes");
    expect(result.code, result.stderr).toBe(0);
    expect(servers()["weather-mcp"]?.env).toEqual({ WEATHER_API_KEY: "${WEATHER_API_KEY}" });
    expect(result.stderr).toContain("Set WEATHER_API_KEY in the environment before starting it");
  });
});

/** A real terminal (tmux): the secret is typed without echo, stored, and referenced. */
describe.skipIf(!TmuxSession.available())("add REGISTRY-NAME on a terminal", () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  it("asks for the secret without echo and writes ${keyring:…} after the user agreed", async () => {
    const { home, file, env, run, servers } = setup();
    // tmux gives the pane its own PATH; `env` sets the one holding only `uvx` (no shell involved).
    const argv = ["add", "-c", file, "--registry", registry.base, WEATHER];
    const term = new TmuxSession(
      ["/usr/bin/env", `PATH=${env.PATH}`, process.execPath, resolve(CLI), ...argv],
      {
        cwd: home,
        env: { ...env, TERM: "xterm-256color" },
        remainOnExit: true,
        width: 200,
      },
    );
    cleanup.push(() => term.close());
    await expect.poll(() => term.screen(), { timeout: 20_000 }).toContain("WEATHER_API_KEY");
    await expect.poll(() => term.screen(), { timeout: 5_000 }).toContain("not echoed");
    term.type(SECRET);
    await expect.poll(() => term.screen(), { timeout: 20_000 }).toContain("Write it? [y/N]");
    term.type("y");
    await expect.poll(() => term.dead(), { timeout: 30_000 }).toBe(true);
    const screen = term.screen();
    expect(screen).not.toContain(SECRET);
    expect(screen).toContain("*".repeat(SECRET.length));
    expect(servers()["weather-mcp"]?.env).toEqual({ WEATHER_API_KEY: REFERENCE });
    expect((await run("secrets", "get", "weather-mcp.WEATHER_API_KEY")).stdout).toBe(`${SECRET}\n`);
  }, 90_000);
});
