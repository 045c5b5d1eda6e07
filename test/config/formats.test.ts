import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { importServers } from "../../src/config/imports.js";
import { loadConfig } from "../../src/config/load.js";
import type { RemoteServerDefinition, StdioServerDefinition } from "../../src/config/model.js";
import { parseConfigText } from "../../src/config/parse.js";

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/configs");
const read = (name: string) => readFileSync(join(fixtures, name), "utf8");
const env = {
  HOME: "/home/ada",
  GITHUB_TOKEN: "gh-token-1234",
  FIGMA_OAUTH_TOKEN: "figma-tok-999",
  TRACE_ID: "trace-1",
  STRIPE_KEY: "sk_test_42",
};
const context = { env, homeDir: "/home/ada" };
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("real-world config formats", () => {
  it("Claude Desktop: three servers, `disabled`, extra top-level keys and autoApprove ignored", () => {
    const parsed = parseConfigText(
      read("claude_desktop_config.json"),
      "/cfg/claude_desktop_config.json",
      context,
    );
    expect(parsed.format).toBe("mcpServers-json");
    expect(parsed.warnings).toEqual([]);
    const [fs, github, weather] = parsed.servers as StdioServerDefinition[];
    expect(fs).toMatchObject({ name: "filesystem", transport: "stdio", command: "npx", enabled: true });
    expect(fs?.args).toEqual([
      "-y",
      "@modelcontextprotocol/server-filesystem",
      "/Users/ada/Desktop",
      "/Users/ada/Downloads",
    ]);
    expect(github?.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_exampleexampleexample" });
    expect(weather).toMatchObject({ name: "weather", enabled: false });
    expect(fs?.startupTimeoutMs).toBe(30_000);
    expect(fs?.callTimeoutMs).toBe(60_000);
    expect(fs?.negotiation).toBe("legacy");
  });

  it("VS Code: `servers`, comments and trailing commas, ${workspaceFolder}, ${env:VAR}; ${input:} entries skipped", () => {
    const file = join(fixtures, "vscode-project/.vscode/mcp.json");
    const parsed = parseConfigText(read("vscode-project/.vscode/mcp.json"), file, context);
    expect(parsed.format).toBe("vscode-json");
    expect(parsed.servers.map((s) => s.name)).toEqual(["fetch", "github"]);
    const warning = parsed.warnings.find((w) => w.server === "perplexity");
    expect(warning?.kind).toBe("unsupported-input");
    expect(warning?.message).toContain("input:perplexity-key");
    const fetch = parsed.servers[0] as StdioServerDefinition;
    expect(fetch.cwd).toBe(join(fixtures, "vscode-project/tools"));
    const github = parsed.servers[1] as RemoteServerDefinition;
    expect(github).toMatchObject({
      transport: "http",
      url: "https://api.githubcopilot.com/mcp/",
      fallbackToSse: false,
    });
    expect(github.headers).toEqual({ Authorization: "Bearer gh-token-1234" });
    expect(github.negotiation).toBe("auto");
    expect(github.healthCheckIntervalMs).toBe(30_000);
  });

  it("Codex: [mcp_servers] with its own keys, none dropped", () => {
    const parsed = parseConfigText(read("codex-config.toml"), "/home/ada/.codex/config.toml", context);
    expect(parsed.format).toBe("codex-toml");
    expect(parsed.warnings).toEqual([]);
    const [docs, figma, legacy] = parsed.servers;
    expect(docs).toMatchObject({
      transport: "stdio",
      startupTimeoutMs: 20_000,
      callTimeoutMs: 45_000,
      tools: { include: ["search", "open_*"], exclude: ["open_admin"] },
      inheritEnv: ["LANG"],
      env: { API_KEY: "value" },
    });
    expect(figma).toMatchObject({ transport: "http", fallbackToSse: true, url: "https://mcp.figma.com/mcp" });
    expect((figma as RemoteServerDefinition).headers).toEqual({
      Authorization: "Bearer figma-tok-999",
      "X-Figma-Region": "us-east-1",
      "X-Trace": "trace-1",
    });
    expect(legacy).toMatchObject({ enabled: false, required: true });
  });

  it("TOML table form with ${VAR:-default}", () => {
    const parsed = parseConfigText(read("seed000-table.toml"), "/cfg/mcp.toml", context);
    expect(parsed.format).toBe("toml-table");
    expect(parsed.servers.map((s) => s.name)).toEqual(["calculator", "search"]);
    expect((parsed.servers[1] as StdioServerDefinition).env).toEqual({ SEARCH_KEY: "demo-key" });
  });

  it("TOML array form with [mcp] globals; an unset variable skips only that entry", () => {
    const parsed = parseConfigText(read("seed002-array.toml"), "/cfg/mcp.toml", context);
    expect(parsed.format).toBe("toml-array");
    expect(parsed.settings).toMatchObject({ enabled: true, autoReload: true, healthCheckIntervalMs: 45_000 });
    expect(parsed.servers.map((s) => s.name)).toEqual(["filesystem", "disabled-one"]);
    expect((parsed.servers[0] as StdioServerDefinition).args[2]).toBe("/home/ada/projects");
    expect(parsed.servers[0]?.callTimeoutMs).toBe(30_000);
    const unset = parsed.warnings.find((w) => w.server === "remote-search");
    expect(unset).toMatchObject({ kind: "unset-variable", field: "headers.Authorization" });
    expect(unset?.message).toContain("SEARCH_TOKEN");
    // The warning names the variable, never a neighbour's value.
    for (const value of Object.values(env)) expect(JSON.stringify(parsed.warnings)).not.toContain(value);
  });

  it("Cursor: ${env:VAR} and a url without transport (Streamable HTTP with SSE fallback)", () => {
    const parsed = parseConfigText(read("cursor-mcp.json"), "/p/.cursor/mcp.json", context);
    expect((parsed.servers[0] as StdioServerDefinition).env).toEqual({ STRIPE_SECRET_KEY: "sk_test_42" });
    expect(parsed.servers[1]).toMatchObject({ transport: "http", fallbackToSse: true });
  });

  it("a url ending in /sse means SSE; unknown keys are warned about and dropped", () => {
    const parsed = parseConfigText(
      JSON.stringify({ mcpServers: { a: { url: "http://h/sse", colour: "blue" } } }),
      "/c/mcp.json",
      context,
    );
    expect(parsed.servers[0]).toMatchObject({ transport: "sse", fallbackToSse: false });
    expect(parsed.warnings).toEqual([
      expect.objectContaining({ kind: "unknown-key", server: "a", field: "colour" }),
    ]);
    expect(parsed.servers[0]).not.toHaveProperty("colour");
  });

  it("malformed files name the file, line and column", () => {
    expect(() =>
      parseConfigText('{\n  "mcpServers": {\n    "a": { "command": }\n  }\n}', "/c/bad.json", context),
    ).toThrow(/\/c\/bad\.json:3:\d+: invalid JSON/);
    expect(() => parseConfigText("[mcp.servers]\nx = { command = }\n", "/c/bad.toml", context)).toThrow(
      /\/c\/bad\.toml:2:\d+: invalid TOML/,
    );
  });
});

describe("imports from other hosts", () => {
  it("Claude Code reads the project .mcp.json and only the mcpServers maps of ~/.claude.json", async () => {
    const home = mkdtempSync(join(tmpdir(), "mcp-bridge-home-"));
    temps.push(home);
    cpSync(join(fixtures, "claude-home/.claude.json"), join(home, ".claude.json"));
    const project = join(home, "work/demo");
    mkdirSync(project, { recursive: true });
    cpSync(join(fixtures, "project/.mcp.json"), join(project, ".mcp.json"));
    const claudeJson = JSON.parse(readFileSync(join(home, ".claude.json"), "utf8"));
    claudeJson.projects = { [project]: claudeJson.projects["/work/demo"] };
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(home, ".claude.json"), JSON.stringify(claudeJson));
    const result = await importServers("claude-code", { cwd: project, homeDir: home, env: {} });
    expect(result.servers.map((s) => s.name).sort()).toEqual(["linear", "memory", "playwright", "sentry"]);
    expect(result.files).toEqual([join(project, ".mcp.json"), join(home, ".claude.json")]);
    expect(result.servers.find((s) => s.name === "sentry")?.source?.file).toBe(join(home, ".claude.json"));
    expect(
      result.servers.some((s) => ["numStartups", "theme", "oauthAccount", "projects"].includes(s.name)),
    ).toBe(false);
  });

  it("an `imports` list in our config merges another host's servers; ours win on a name clash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-imports-"));
    temps.push(dir);
    mkdirSync(join(dir, ".cursor"));
    cpSync(join(fixtures, "cursor-mcp.json"), join(dir, ".cursor/mcp.json"));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      join(dir, "mcp.json"),
      JSON.stringify({
        // The import itself is tested here, not its quarantine (quarantine.test.ts).
        settings: { imports: ["cursor"], quarantine: "off" },
        mcpServers: { context7: { command: "local-context7" } },
      }),
    );
    const config = await loadConfig({ cwd: dir, env: { STRIPE_KEY: "k" }, homeDir: dir });
    expect(config.servers.map((s) => s.name)).toEqual(["context7", "stripe"]);
    expect(config.servers[0]).toMatchObject({ transport: "stdio", command: "local-context7" });
    expect(config.warnings.some((w) => w.kind === "import" && w.server === "context7")).toBe(true);
  });
});
