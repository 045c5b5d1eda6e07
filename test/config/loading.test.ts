import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InputRequest } from "../../src/config/inputs.js";
import { configSearchPaths, hostConfigsFound, loadConfig } from "../../src/config/load.js";
import { parseConfigText } from "../../src/config/parse.js";
import { didYouMean, editDistance, suggest } from "../../src/util/suggest.js";

let root: string;
let cwd: string;
let home: string;
let env: Record<string, string>;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "mcp-bridge-loading-"));
  cwd = join(root, "project");
  home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const names = (config: { servers: readonly { name: string }[] }) => config.servers.map((s) => s.name);

describe("every recognised form in one file loads together", () => {
  it("[mcp.servers] tables and Codex [mcp_servers.x] in one TOML file", async () => {
    const file = join(cwd, "mcp.toml");
    write(
      file,
      [
        "[mcp]",
        'startup_timeout = "20s"',
        "[mcp.servers]",
        'calc = { command = "node", args = ["calc.js"] }',
        'shared = { command = "from-table" }',
        "[mcp_servers.docs]",
        'command = "docs-server"',
        "[mcp_servers.shared]",
        'command = "from-codex"',
      ].join("\n"),
    );
    const config = await loadConfig({ cwd, env });
    expect(names(config).sort()).toEqual(["calc", "docs", "shared"]);
    expect(config.servers.find((s) => s.name === "calc")?.startupTimeoutMs).toBe(20_000);
    const clash = config.warnings.find((w) => w.server === "shared");
    expect(clash?.kind).toBe("duplicate-server");
    expect(clash?.message).toContain("[mcp.servers]");
    expect(clash?.message).toContain("[mcp_servers]");
    expect(config.skipped).toEqual([]);
  });

  it('"mcpServers" and VS Code "servers" in one JSON file', () => {
    const parsed = parseConfigText(
      JSON.stringify({
        mcpServers: { a: { command: "a" } },
        servers: { b: { type: "stdio", command: "b" } },
      }),
      "/p/mcp.json",
      { env: {}, homeDir: homedir() },
    );
    expect(names(parsed)).toEqual(["a", "b"]);
    expect(parsed.servers.map((s) => s.source?.format)).toEqual(["mcpServers-json", "vscode-json"]);
    expect(parsed.warnings).toEqual([]);
  });

  it("each TOML block of docs/config.md loads every server it shows, with no warning", async () => {
    const readme = readFileSync(new URL("../../docs/config.md", import.meta.url), "utf8");
    const blocks = [...readme.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks.length).toBeGreaterThan(0);
    for (const [index, text] of blocks.entries()) {
      const file = join(root, `readme-${index}.toml`);
      write(file, text);
      const config = await loadConfig({ path: file, cwd, env });
      const shown = [
        ...text.matchAll(/^\[mcp_servers\.([\w-]+)\]|^name = "([\w-]+)"|^([\w-]+) = \{ (?:command|url)/gm),
      ].map((m) => m[1] ?? m[2] ?? m[3]);
      expect(shown.length, text).toBeGreaterThan(0);
      expect(config.warnings, text).toEqual([]);
      expect(names(config).sort(), text).toEqual([...shown].sort());
    }
  });
});

describe("unknown top-level keys", () => {
  it('"mcpServer" is named with a suggestion, and nothing loads', () => {
    const parsed = parseConfigText(JSON.stringify({ mcpServer: { a: { command: "a" } } }), "/p/mcp.json", {
      env: {},
      homeDir: homedir(),
    });
    expect(parsed.servers).toEqual([]);
    const warning = parsed.warnings.find((w) => w.kind === "unknown-key");
    expect(warning?.field).toBe("mcpServer");
    expect(warning?.message).toContain('did you mean "mcpServers"?');
  });

  it("a host file's own keys stay quiet while a typo of ours is named", () => {
    const parsed = parseConfigText(
      JSON.stringify({ globalShortcut: "x", mcpServers: { a: { command: "a" } }, setings: {} }),
      "/p/claude_desktop_config.json",
      { env: {}, homeDir: homedir() },
    );
    expect(parsed.warnings.map((w) => w.field)).toEqual(["setings"]);
    expect(parsed.warnings[0]?.message).toContain('did you mean "settings"?');
  });

  it("in mcp-bridge's own file every unknown top-level key is named", () => {
    const parsed = parseConfigText(
      JSON.stringify({ mcpServers: { a: { command: "a" } }, extras: {} }),
      "/p/mcp.json",
      { env: {}, homeDir: homedir() },
    );
    expect(parsed.warnings.map((w) => [w.kind, w.field])).toEqual([["unknown-key", "extras"]]);
  });

  it("an unknown server key and setting get suggestions too", () => {
    const parsed = parseConfigText(
      JSON.stringify({ settings: { callTimout: 5 }, mcpServers: { a: { command: "a", arg: ["x"] } } }),
      "/p/mcp.json",
      { env: {}, homeDir: homedir() },
    );
    const messages = parsed.warnings.map((w) => w.message).join("\n");
    expect(messages).toContain('"callTimout" was ignored; did you mean "callTimeout"?');
    expect(messages).toContain('"arg" was ignored; did you mean "args"?');
  });

  it("suggest: nearest candidate within a typo's distance, else nothing", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(suggest("mcpServer", ["mcpServers", "servers"])).toBe("mcpServers");
    expect(suggest("MCPSERVERS", ["mcpServers"])).toBe("mcpServers");
    expect(suggest("model", ["mcpServers", "mcp", "settings"])).toBeUndefined();
    expect(didYouMean("comand", ["command", "args"])).toBe('; did you mean "command"?');
    expect(suggest("x".repeat(100), ["x".repeat(99)])).toBeUndefined();
  });
});

describe("skipped entries are carried in the loaded config", () => {
  it("an unset variable and a bad field each give a skipped entry with its reason", async () => {
    const config = await loadConfig({
      env: {},
      servers: {
        ok: { command: "node" },
        secret: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${NOT_SET_ANYWHERE}" } },
        typo: { command: "node", timeout: "soon" },
      },
    });
    expect(names(config)).toEqual(["ok"]);
    expect(config.skipped.map((s) => [s.name, s.transport, s.kind, s.field])).toEqual([
      ["secret", "http", "unset-variable", "headers.Authorization"],
      ["typo", "stdio", "invalid-entry", "timeout"],
    ]);
    expect(config.skipped[0]?.reason).toContain("NOT_SET_ANYWHERE");
  });
});

describe("search order: VS Code's mcp.json", () => {
  it("./.vscode/mcp.json comes after ./.mcp.json, VS Code's user mcp.json after mcp-bridge's own", async () => {
    const vscodeUser = join(home, ".config", "Code", "User", "mcp.json");
    write(vscodeUser, JSON.stringify({ servers: { user: { command: "vscode-user" } } }));
    const platform = "linux" as const;
    expect(names(await loadConfig({ cwd, env, platform }))).toEqual(["user"]);
    write(join(cwd, ".vscode", "mcp.json"), JSON.stringify({ servers: { project: { command: "p" } } }));
    const config = await loadConfig({ cwd, env, platform });
    expect(config.file).toBe(join(cwd, ".vscode", "mcp.json"));
    expect(names(config)).toEqual(["project"]);
    write(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { dot: { command: "d" } } }));
    expect(names(await loadConfig({ cwd, env, platform }))).toEqual(["dot"]);
    const paths = configSearchPaths({ cwd, env, platform }).map((p) => p.path);
    expect(paths.indexOf(join(cwd, ".vscode", "mcp.json"))).toBe(paths.indexOf(join(cwd, ".mcp.json")) + 1);
    expect(paths.at(-1)).toBe(vscodeUser);
  });

  it("macOS and Windows locations of VS Code's user mcp.json", () => {
    const mac = configSearchPaths({ cwd, env, platform: "darwin" }).at(-1)?.path;
    expect(mac).toBe(join(home, "Library", "Application Support", "Code", "User", "mcp.json"));
    const win = configSearchPaths({
      cwd,
      env: { ...env, APPDATA: join(home, "AppData") },
      platform: "win32",
    });
    expect(win.at(-1)?.path).toBe(join(home, "AppData", "Code", "User", "mcp.json"));
  });

  it("envFile is read relative to the config file; env wins on a clash", async () => {
    write(
      join(cwd, ".vscode", "mcp.json"),
      JSON.stringify({
        servers: {
          s: { command: "node", envFile: "${workspaceFolder}/.env", env: { B: "from-env" } },
          missing: { command: "node", envFile: "nope.env" },
        },
      }),
    );
    write(join(cwd, ".env"), '# comment\nA=1\nexport B=from-file\nC="two words"\n');
    const config = await loadConfig({ cwd, env });
    const server = config.servers[0];
    expect(server?.transport === "stdio" && server.env).toEqual({ A: "1", B: "from-env", C: "two words" });
    expect(config.skipped.map((s) => [s.name, s.field])).toEqual([["missing", "envFile"]]);
  });

  it("hostConfigsFound lists other hosts' files that exist", () => {
    expect(hostConfigsFound({ cwd, env })).toEqual([]);
    write(join(home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: {} }));
    expect(hostConfigsFound({ cwd, env })).toEqual([
      { source: "cursor", file: join(home, ".cursor", "mcp.json") },
    ]);
  });
});

describe("imports", () => {
  it("a server in two imported hosts is reported with both real files", async () => {
    const cursor = join(home, ".cursor", "mcp.json");
    const claude = join(home, ".config", "Claude", "claude_desktop_config.json");
    write(cursor, JSON.stringify({ mcpServers: { memory: { command: "cursor-memory" } } }));
    write(claude, JSON.stringify({ mcpServers: { memory: { command: "claude-memory" } } }));
    const own = join(cwd, "mcp.json");
    write(
      own,
      JSON.stringify({
        settings: { imports: ["cursor", "claude-desktop"], quarantine: "off" },
        mcpServers: { mine: { command: "m" } },
      }),
    );
    const config = await loadConfig({ cwd, env, platform: "linux" });
    expect(names(config)).toEqual(["mine", "memory"]);
    const clash = config.warnings.find((w) => w.server === "memory");
    expect(clash?.message).toContain(cursor);
    expect(clash?.message).toContain(claude);
    expect(clash?.message).not.toContain(own);
  });
});

describe("${input:...}", () => {
  const vscode = {
    inputs: [{ type: "promptString", id: "api-key", description: "API key", password: true }],
    servers: {
      a: { command: "node", env: { KEY: "${input:api-key}" } },
      b: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${input:api-key}" } },
      c: { command: "node", args: ["${input:region}"] },
    },
  };

  it("asks the resolveInput hook once per id and uses the answers", async () => {
    write(join(cwd, ".vscode", "mcp.json"), JSON.stringify(vscode));
    const asked: InputRequest[] = [];
    const config = await loadConfig({
      cwd,
      env,
      resolveInput: async (request) => {
        asked.push(request);
        return request.id === "api-key" ? "sk-typed-in" : undefined;
      },
    });
    expect(asked.map((r) => [r.id, r.password, r.description])).toEqual([
      ["api-key", true, "API key"],
      ["region", false, undefined],
    ]);
    expect(names(config)).toEqual(["a", "b"]);
    const b = config.servers[1];
    expect(b?.transport === "http" && b.headers.Authorization).toBe("Bearer sk-typed-in");
    expect(config.skipped.map((s) => [s.name, s.kind])).toEqual([["c", "unsupported-input"]]);
  });

  it("without a hook, entries using an input are skipped with a warning", async () => {
    write(join(cwd, ".vscode", "mcp.json"), JSON.stringify(vscode));
    const config = await loadConfig({ cwd, env });
    expect(names(config)).toEqual([]);
    expect(config.skipped.map((s) => s.kind)).toEqual([
      "unsupported-input",
      "unsupported-input",
      "unsupported-input",
    ]);
    expect(config.warnings.some((w) => w.message.includes("${input:api-key}"))).toBe(true);
  });
});

describe("${input:...} in a project file", () => {
  it("is asked only for servers the host admits, and the host is asked once per server", async () => {
    write(
      join(cwd, ".vscode", "mcp.json"),
      JSON.stringify({
        servers: {
          approved: { command: "node", env: { A: "${input:for-approved}" } },
          refused: { command: "node", env: { B: "${input:for-refused}" } },
        },
      }),
    );
    const admitted: string[] = [];
    const asked: string[] = [];
    const config = await loadConfig({
      cwd,
      env,
      admitProjectServer: ({ name }) => {
        admitted.push(name);
        return name === "approved";
      },
      resolveInput: ({ id }) => {
        asked.push(id);
        return "typed";
      },
    });
    expect(asked).toEqual(["for-approved"]);
    expect(admitted.sort()).toEqual(["approved", "refused"]);
    expect(names(config)).toEqual(["approved"]);
  });
});
