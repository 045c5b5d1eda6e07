import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthStore } from "../../src/auth/oauth-client.js";
import { RefreshCoordinator } from "../../src/auth/refresh.js";
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
    expect(oauth.reusedRefreshTokens).toBe(0);

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

  it("a token within the margin of its expiry is refreshed before a call presents it, once for 8 processes", async () => {
    const before = store.read().tokens;
    const refreshes = oauth.refreshRequests;
    const refused = oauth.refusedAccessTokens;
    // Still good at the server, but the store says it expires in 10 s: within the default 60 s margin.
    const soon = () =>
      store.update((stored) => ({ ...stored, expiresAt: new Date(Date.now() + 10_000).toISOString() }));
    soon();
    const env = cliEnv(home);
    const runs = await Promise.all(
      Array.from({ length: 8 }, () =>
        runCli(["call", "remote/add", "a=2", "b=3", "-c", config], { cwd: home, env, timeoutMs: 120_000 }),
      ),
    );
    for (const run of runs) expect(run, run.stderr).toMatchObject({ code: 0, stdout: "5\n" });
    expect(oauth.refreshRequests).toBe(refreshes + 1);
    expect(oauth.refusedAccessTokens).toBe(refused);
    expect(oauth.reusedRefreshTokens).toBe(0);
    const after = store.read();
    expect(after.tokens?.access_token).not.toBe(before?.access_token);
    expect(Date.parse(after.expiresAt ?? "")).toBeGreaterThan(Date.now() + 3_000_000);

    // `tokenRefreshMargin: 0` waits for the server to refuse the token instead.
    const noMargin = join(home, "no-margin.json");
    writeFileSync(
      noMargin,
      JSON.stringify({ mcpServers: { remote: { type: "http", url: oauth.url, tokenRefreshMargin: 0 } } }),
    );
    soon();
    const run = await runCli(["call", "remote/add", "a=1", "b=2", "-c", noMargin], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: "3\n" });
    expect(oauth.refreshRequests).toBe(refreshes + 1);
  }, 150_000);

  it("a refresh token rotated by another process is never presented again: the current one is sent", async () => {
    const expire = () => store.update((stored) => ({ ...stored, expiresAt: new Date(0).toISOString() }));
    const tokenEndpoint = `${new URL(oauth.url).origin}/token`;
    const refresh = (coordinator: RefreshCoordinator, refreshToken: string) =>
      coordinator.fetch(fetch)(tokenEndpoint, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshToken,
          client_id: "c",
        }),
      });
    // What one process read before another refreshed: its refresh token is spent after that refresh.
    const stale = store.read().tokens?.refresh_token as string;
    expire();
    expect((await refresh(new RefreshCoordinator(store), stale)).status).toBe(200);
    const rotated = store.read().tokens?.refresh_token;
    expect(rotated).not.toBe(stale);
    const reused = oauth.reusedRefreshTokens;
    expire();
    const late = await refresh(new RefreshCoordinator(store), stale);
    expect(late.status).toBe(200);
    expect(oauth.reusedRefreshTokens).toBe(reused);
    expect(store.read().tokens?.refresh_token).not.toBe(rotated);
  });

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
    expect(failed.stdout + failed.stderr).toContain("refused the stored refresh token");
    expect(failed.stdout + failed.stderr).toContain("mcp-bridge auth login remote");
    expect(store.read().tokens).toBeUndefined();
    // Asked once: the next call goes nowhere near the token endpoint and still names the login.
    const refreshes = oauth.refreshRequests;
    const again = await runCli(["call", "remote/add", "a=1", "b=1", "-c", config], {
      cwd: home,
      env,
      timeoutMs: 60_000,
    });
    expect(again.code).not.toBe(0);
    expect(again.stdout + again.stderr).toContain("mcp-bridge auth login remote");
    expect(oauth.refreshRequests).toBe(refreshes);
  }, 90_000);
});
