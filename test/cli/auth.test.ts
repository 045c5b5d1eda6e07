import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthStore, defaultAuthDir } from "../../src/auth/oauth-client.js";
import { cliEnv, emptyHome, loginThroughBrowser, runCli } from "../helpers/cli.js";
import { startMcpHttpServer } from "../helpers/http-servers.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";

let home: string;
let oauth: OAuthTestServer;
let config: string;

beforeAll(async () => {
  home = emptyHome();
  oauth = await startOAuthServer();
  config = join(home, "servers.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { remote: { type: "http", url: oauth.url } },
    }),
  );
});

afterAll(async () => {
  await oauth.close();
  rmSync(home, { recursive: true, force: true });
});

describe("mcp-bridge auth", () => {
  it("without a login, a protected server fails with a message saying how to log in", async () => {
    const run = await runCli(["status", "-c", config], { cwd: home, env: cliEnv(home) });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("requires authorization: run `mcp-bridge auth login remote`");
  });

  it("login: PKCE + dynamic registration through the browser step, token stored 0600 and never printed", async () => {
    // The "browser": follows the authorization server's redirect to the CLI's loopback callback.
    const { pageStatus, code, stdout, stderr } = await loginThroughBrowser("remote", config, home);
    expect(pageStatus).toBe(200);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Logged in to remote; the token is stored in .+ \(mode 0600\)/);
    expect(oauth.issuedTokens).toHaveLength(1);
    const token = oauth.issuedTokens[0] as string;
    expect(stdout + stderr).not.toContain(token);

    const store = new AuthStore(
      join(home, ".config/mcp-bridge/auth"),
      "remote",
      JSON.parse(readFileSync(config, "utf8")).mcpServers.remote.url,
    );
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.read().tokens).toMatchObject({ access_token: token });
  });

  it("the stored login is reused by every later run, and logout removes it", async () => {
    const env = cliEnv(home);
    const call = await runCli(["call", "remote/add", "a=2", "b=40", "-c", config], { cwd: home, env });
    expect(call).toMatchObject({ code: 0, stdout: "42\n" });
    const status = JSON.parse(
      (await runCli(["auth", "status", "--json", "-c", config], { cwd: home, env })).stdout,
    );
    expect(status.servers[0]).toMatchObject({ server: "remote", loggedIn: true });
    expect(JSON.stringify(status)).not.toContain("tok-");
    expect((await runCli(["auth", "logout", "remote", "-c", config], { cwd: home, env })).code).toBe(0);
    const after = await runCli(["call", "remote/add", "a=1", "b=1", "-c", config], { cwd: home, env });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("auth login remote");
  });

  it("login to a server without OAuth says so, exits 1 and writes no token file", async () => {
    await using plain = await startMcpHttpServer();
    const plainConfig = join(home, "plain.json");
    writeFileSync(plainConfig, JSON.stringify({ mcpServers: { plain: { type: "http", url: plain.url } } }));
    const env = cliEnv(home, { MCP_BRIDGE_NO_BROWSER: "1" });
    const run = await runCli(["auth", "login", "plain", "-c", plainConfig], { cwd: home, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Server "plain" does not use OAuth');
    expect(run.stdout).not.toContain("Logged in");
    const store = new AuthStore(defaultAuthDir(env), "plain", plain.url);
    expect(existsSync(store.file)).toBe(false);
  });
});
