import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSearchPaths, loadConfig } from "../../src/config/load.js";

let root: string;
let cwd: string;
let home: string;
const server = (command: string) => JSON.stringify({ mcpServers: { s: { command } } });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "mcp-bridge-search-"));
  cwd = join(root, "project");
  home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(join(home, ".config/mcp-bridge"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function commandOf(options: Parameters<typeof loadConfig>[0]) {
  const config = await loadConfig(options);
  const first = config.servers[0];
  return first?.transport === "stdio" ? first.command : undefined;
}

describe("config search order", () => {
  it("MCP_BRIDGE_CONFIG, then --config, then ./mcp.json, ./mcp.toml, ./.mcp.json, then the user config", async () => {
    const env = { HOME: home };
    writeFileSync(join(home, ".config/mcp-bridge/mcp.json"), server("user"));
    expect(await commandOf({ cwd, env })).toBe("user");
    writeFileSync(join(cwd, ".mcp.json"), server("dot-mcp"));
    expect(await commandOf({ cwd, env })).toBe("dot-mcp");
    writeFileSync(join(cwd, "mcp.toml"), '[mcp.servers.s]\ncommand = "toml"\n');
    expect(await commandOf({ cwd, env })).toBe("toml");
    writeFileSync(join(cwd, "mcp.json"), server("json"));
    expect(await commandOf({ cwd, env })).toBe("json");
    writeFileSync(join(root, "named.json"), server("named"));
    expect(await commandOf({ cwd, env, path: join(root, "named.json") })).toBe("named");
    writeFileSync(join(root, "from-env.json"), server("env"));
    expect(
      await commandOf({
        cwd,
        env: { ...env, MCP_BRIDGE_CONFIG: join(root, "from-env.json") },
        path: join(root, "named.json"),
      }),
    ).toBe("env");
    const paths = configSearchPaths({ cwd, env });
    expect(paths.filter((p) => p.used).map((p) => p.path)).toEqual([join(cwd, "mcp.json")]);
  });

  it("respects XDG_CONFIG_HOME", async () => {
    const xdg = join(root, "xdg");
    mkdirSync(join(xdg, "mcp-bridge"), { recursive: true });
    writeFileSync(join(xdg, "mcp-bridge/mcp.toml"), '[mcp.servers.s]\ncommand = "xdg"\n');
    expect(await commandOf({ cwd, env: { HOME: home, XDG_CONFIG_HOME: xdg } })).toBe("xdg");
  });

  it("a named file that is missing is an error; unnamed locations that are missing are skipped", async () => {
    await expect(loadConfig({ cwd, env: { HOME: home }, path: "nope.json" })).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
    });
    await expect(loadConfig({ cwd, env: { HOME: home, MCP_BRIDGE_CONFIG: "/nope/x.json" } })).rejects.toThrow(
      /MCP_BRIDGE_CONFIG names/,
    );
    const empty = await loadConfig({ cwd, env: { HOME: home } });
    expect(empty.servers).toEqual([]);
    expect(empty.file).toBeUndefined();
  });

  it("servers given in code need no file; settings given in code win", async () => {
    const config = await loadConfig({
      servers: { a: { command: "x", timeout: 5 } },
      settings: { maxResultChars: 100 },
      env: {},
    });
    expect(config.format).toBe("object");
    expect(config.servers[0]?.callTimeoutMs).toBe(5000);
    expect(config.settings.maxResultChars).toBe(100);
  });
});
