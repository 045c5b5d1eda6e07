import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyringStore, TOKEN_SERVICE } from "../../src/util/secret-store.js";
import { cliEnv, emptyHome, loginThroughBrowser, runCli } from "../helpers/cli.js";
import { type OAuthTestServer, startOAuthServer } from "../helpers/oauth-server.js";
import {
  needsSecretService,
  type SecretService,
  secretServiceMissing,
  startSecretService,
} from "../helpers/secret-service.js";

/** `auth login`, a call with the stored login and `auth logout`, with the tokens in a real Secret Service. */
describe.skipIf(secretServiceMissing !== undefined)(
  needsSecretService("OAuth login into the keychain"),
  () => {
    let service: SecretService;
    let oauth: OAuthTestServer;
    let home: string;
    let config: string;
    let env: Record<string, string>;
    let saved: string | undefined;
    beforeAll(async () => {
      service = await startSecretService();
      saved = process.env.DBUS_SESSION_BUS_ADDRESS;
      process.env.DBUS_SESSION_BUS_ADDRESS = service.env.DBUS_SESSION_BUS_ADDRESS;
      oauth = await startOAuthServer();
      home = emptyHome();
      config = join(home, "servers.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { remote: { type: "http", url: oauth.url } } }));
      // The default choice (auto): the keychain, since one answers.
      env = {
        DBUS_SESSION_BUS_ADDRESS: service.env.DBUS_SESSION_BUS_ADDRESS,
        MCP_BRIDGE_TOKEN_STORE: "auto",
      };
    }, 30_000);
    afterAll(async () => {
      await oauth?.close();
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      service?.stop();
    });
    const tokensInKeychain = () => new KeyringStore(TOKEN_SERVICE, "").names().length;

    it("stores the login in the keychain, uses it, and logout removes it", async () => {
      const login = await loginThroughBrowser("remote", config, home, env);
      expect(login.code, login.stderr).toBe(0);
      expect(login.stdout).toContain("Logged in to remote; the token is stored in the OS credential store.");
      const token = oauth.issuedTokens[0] as string;
      expect(login.stdout + login.stderr).not.toContain(token);
      const authDir = join(home, ".config", "mcp-bridge", "auth");
      expect(readdirSync(authDir).filter((name) => name.endsWith(".json"))).toEqual([]);
      expect(tokensInKeychain()).toBe(1);

      const run = { cwd: home, env: cliEnv(home, env) };
      expect(await runCli(["call", "remote/add", "a=2", "b=40", "-c", config], run)).toMatchObject({
        code: 0,
        stdout: "42\n",
      });
      const status = JSON.parse((await runCli(["auth", "status", "--json", "-c", config], run)).stdout);
      expect(status.servers[0]).toMatchObject({ server: "remote", loggedIn: true });
      expect((await runCli(["auth", "logout", "remote", "-c", config], run)).code).toBe(0);
      expect(tokensInKeychain()).toBe(0);
      const after = await runCli(["call", "remote/add", "a=1", "b=1", "-c", config], run);
      expect(after.code).toBe(1);
      expect(after.stderr).toContain("auth login remote");
    }, 90_000);
  },
);
