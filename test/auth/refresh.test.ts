import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthStore } from "../../src/auth/oauth-client.js";
import { cliEnv, emptyHome, loginThroughBrowser, runCli } from "../helpers/cli.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";

let home: string;
let oauth: OAuthTestServer;
let config: string;
let store: AuthStore;

/** `mcp-bridge auth login remote`, with fetch as the browser that follows the redirect. */
async function login(): Promise<void> {
  expect((await loginThroughBrowser("remote", config, home)).code).toBe(0);
}

beforeAll(async () => {
  home = emptyHome();
  oauth = await startOAuthServer();
  config = join(home, "servers.json");
  // 32 CLIs starting at once on a loaded machine may take longer than the default 30 s to connect;
  // what the test proves is one refresh among them, not how fast they start.
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { remote: { type: "http", url: oauth.url, startupTimeout: "200s" } } }),
  );
  store = new AuthStore(join(home, ".config/mcp-bridge/auth"), "remote", oauth.url);
});

afterAll(async () => {
  await oauth.close();
  rmSync(home, { recursive: true, force: true });
});

describe("OAuth refresh shared by processes", () => {
  it("32 processes holding the same expired token refresh it once, and every call succeeds", async () => {
    await login();
    const before = store.read().tokens;
    expect(before?.refresh_token).toMatch(/^ref-/);
    oauth.expireAccessTokens();

    const env = cliEnv(home);
    const runs = await Promise.all(
      Array.from({ length: 32 }, () =>
        runCli(["call", "remote/add", "a=2", "b=40", "-c", config], { cwd: home, env, timeoutMs: 240_000 }),
      ),
    );
    for (const run of runs) expect(run, run.stderr).toMatchObject({ code: 0, stdout: "42\n" });
    expect(oauth.refreshRequests).toBe(1);

    // The rotated pair is what the store keeps: no process deleted it, and no login is needed.
    const after = store.read().tokens;
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(after?.refresh_token).not.toBe(before?.refresh_token);
    const again = await runCli(["call", "remote/add", "a=1", "b=1", "-c", config], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(again).toMatchObject({ code: 0, stdout: "2\n" });
    expect(oauth.refreshRequests).toBe(1);
  }, 290_000);

  it("a refused refresh token is forgotten, and the call says to log in again", async () => {
    oauth.expireAccessTokens();
    // A refresh token the authorization server no longer accepts (revoked, or spent elsewhere).
    const current = store.read().tokens as Record<string, unknown>;
    const spent = { ...current, refresh_token: "ref-spent" };
    store.update((stored) => ({ ...stored, tokens: spent }));
    const env = cliEnv(home);
    const failed = await runCli(["call", "remote/add", "a=1", "b=1", "-c", config], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(failed.code).not.toBe(0);
    expect(failed.stdout + failed.stderr).toContain("mcp-bridge auth login remote");
    expect(store.read().tokens).toBeUndefined();
  }, 90_000);
});
