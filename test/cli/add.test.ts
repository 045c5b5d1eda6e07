import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, runCliInProcess } from "../helpers/cli.js";

/** `mcp-bridge add` in the forms Claude Code's and Codex's users type, run in-process. */

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function freshConfig(text: string, name = "servers.json") {
  const home = emptyHome();
  homes.push(home);
  const file = join(home, name);
  writeFileSync(file, text);
  const run = (...args: string[]) =>
    runCliInProcess(["add", "-c", file, ...args], { cwd: home, env: cliEnv(home) });
  return { file, run };
}

const servers = (file: string) =>
  JSON.parse(readFileSync(file, "utf8")).mcpServers as Record<string, unknown>;

describe("add: remote servers are written as URLs, never as commands", () => {
  it("Claude Code's --transport http|sse NAME URL, Codex's --url, and a bare URL", async () => {
    const { file, run } = freshConfig('{ "mcpServers": {} }\n');
    expect((await run("--transport", "http", "web", "http://127.0.0.1:9/mcp")).code).toBe(0);
    expect((await run("-t", "sse", "legacy", "http://127.0.0.1:9/sse")).code).toBe(0);
    expect((await run("plain", "https://example.com/mcp")).code).toBe(0);
    expect((await run("codex", "--url", "https://example.com/codex")).code).toBe(0);
    expect(servers(file)).toEqual({
      web: { type: "http", url: "http://127.0.0.1:9/mcp" },
      legacy: { type: "sse", url: "http://127.0.0.1:9/sse" },
      plain: { type: "http", url: "https://example.com/mcp" },
      codex: { type: "http", url: "https://example.com/codex" },
    });
  });

  it("headers in Claude Code's 'Name: value' form and Name=value; env with -e; none of it printed", async () => {
    const { file, run } = freshConfig('{ "mcpServers": {} }\n');
    const remote = await run(
      "--transport",
      "http",
      "web",
      "https://x.example/mcp",
      "-H",
      "X-Api-Key: s3cret",
      "--header",
      "X-Team=blue",
    );
    expect(remote.code).toBe(0);
    expect(remote.stdout + remote.stderr).not.toContain("s3cret");
    const local = await run("mem", "-e", "TOKEN=hunter2", "--", "npx", "-y", "srv");
    expect(local.code).toBe(0);
    expect(local.stdout + local.stderr).not.toContain("hunter2");
    expect(servers(file)).toEqual({
      web: {
        type: "http",
        url: "https://x.example/mcp",
        headers: { "X-Api-Key": "s3cret", "X-Team": "blue" },
      },
      mem: { command: "npx", args: ["-y", "srv"], env: { TOKEN: "hunter2" } },
    });
  });

  it.each([
    [["web", "--url", "https://a.example/mcp", "https://b.example/mcp"], "Give the URL once"],
    [["web", "--", "https://a.example/mcp"], "is a URL, not a command"],
    [["--transport", "http", "web", "--", "npx", "srv"], "takes a URL, not a command"],
    [["--transport", "http", "web"], "needs a URL"],
    [["--transport", "http", "web", "https://a.example/mcp", "extra"], "takes one URL"],
    [["web", "--env", "A=1", "https://a.example/mcp"], "--env is for a stdio server"],
    [["web", "--cwd", "/tmp", "--url", "https://a.example/mcp"], "--cwd is for a stdio server"],
    [["web", "--header", "A=1", "--", "npx", "srv"], "--header is for a remote server"],
    [["--transport", "stdio", "web", "--url", "https://a.example/mcp"], "--url is for a remote server"],
    [["--transport", "websocket", "web", "https://a.example/mcp"], "--transport takes stdio, http or sse"],
    [["--transport", "http", "web", "ftp://a.example/mcp"], "http:// or https:// URL"],
    [["web"], "add needs a command or a URL"],
    [["--scope", "user", "web", "https://a.example/mcp"], "mcp-bridge has no `add --scope`"],
    [["web", "--header", "no separator", "https://a.example/mcp"], "--header takes"],
  ])("refuses %j with a usage error and leaves the file alone", async (args, message) => {
    const before = '{ "mcpServers": {} }\n';
    const { file, run } = freshConfig(before);
    const result = await run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(readFileSync(file, "utf8")).toBe(before);
  });
});

describe("add writes the dialect of the host that owns the file", () => {
  it("Codex's config.toml: http_headers, env_http_headers, bearer_token_env_var and no type", async () => {
    const { file, run } = freshConfig(
      'model = "o3"\n\n[mcp_servers.calc]\ncommand = "node"\n',
      "config.toml",
    );
    const result = await run(
      "--transport",
      "http",
      "docs",
      "https://example.com/mcp",
      "--header",
      "Authorization: Bearer ${DOCS_TOKEN}",
      "--header",
      "X-Key=${DOCS_KEY}",
      "--header",
      "X-Team: blue",
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const docs = (parse(readFileSync(file, "utf8")) as { mcp_servers: Record<string, unknown> }).mcp_servers
      .docs;
    expect(docs).toEqual({
      url: "https://example.com/mcp",
      http_headers: { "X-Team": "blue" },
      env_http_headers: { "X-Key": "DOCS_KEY" },
      bearer_token_env_var: "DOCS_TOKEN",
    });
    const mixed = await run(
      "--transport",
      "http",
      "other",
      "https://example.com/mcp",
      "-H",
      "X-Key: key-${DOCS_KEY}",
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("Codex");
  });

  it("VS Code's servers object: a type on every entry", async () => {
    const { file, run } = freshConfig('{ "servers": {} }\n', "mcp.json");
    expect((await run("mem", "--", "npx", "srv")).code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).servers.mem).toEqual({
      type: "stdio",
      command: "npx",
      args: ["srv"],
    });
  });
});

describe("add --help", () => {
  it("quotes a ${VAR} example in single quotes, so the shell does not expand the secret", async () => {
    const help = await runCliInProcess(["add", "--help"], { cwd: "/", env: {} });
    expect(help.stdout).toContain("'Authorization: Bearer ${TOKEN}'");
    // No example leaves a $ where the shell would expand it (outside single quotes).
    for (const line of help.stdout.split("\n").filter((l) => l.includes("mcp-bridge add")))
      expect(line.replace(/'[^']*'/g, "")).not.toContain("$");
  });
});
