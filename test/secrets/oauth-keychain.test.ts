import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { AuthStore } from "../../src/auth/store.js";
import { tokenKeychain } from "../../src/auth/token-keychain.js";
import { KeyringStore, TOKEN_SERVICE } from "../../src/util/secret-store.js";
import {
  needsSecretService,
  secretServiceForThisProcess,
  secretServiceMissing,
} from "../helpers/secret-service.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcpb-oauth-keychain-");
const URL_ = "https://mcp.example.com/mcp";
const keychain = () => tokenKeychain({ MCP_BRIDGE_TOKEN_STORE: "keyring" });
const idOf = (store: AuthStore) => store.file.slice(store.dir.length + 1, -".json".length);

/** OAuth tokens in a real Secret Service (a private D-Bus session with GNOME Keyring), the file as fallback. */
describe.skipIf(secretServiceMissing !== undefined)(
  needsSecretService("OAuth tokens in the OS credential store"),
  () => {
    const running = secretServiceForThisProcess();

    it("keeps the tokens in the keychain, not in a file, and a logout removes them", () => {
      const dir = tempDir();
      const store = new AuthStore(dir, "linear", URL_, { keychain: keychain() });
      expect(store.location).toBe("the OS credential store");
      store.update((current) => ({ ...current, tokens: { access_token: "at-1", refresh_token: "rt-1" } }));
      expect(existsSync(store.file)).toBe(false);
      expect(new AuthStore(dir, "linear", URL_, { keychain: keychain() }).read().tokens).toEqual({
        access_token: "at-1",
        refresh_token: "rt-1",
      });
      expect(new KeyringStore(TOKEN_SERVICE, "").names()).toContain(idOf(store));
      store.clear();
      expect(store.read()).toEqual({});
      expect(new KeyringStore(TOKEN_SERVICE, "").names()).not.toContain(idOf(store));
    });

    it("reads a login saved in a file before, and moves it into the keychain on the next change", () => {
      const dir = tempDir();
      const old = new AuthStore(dir, "moved", URL_, { keychain: null });
      old.update(() => ({ tokens: { access_token: "from-file" }, client: { client_id: "c" } }));
      expect(existsSync(old.file)).toBe(true);
      const store = new AuthStore(dir, "moved", URL_, { keychain: keychain() });
      expect(store.read().tokens).toEqual({ access_token: "from-file" });
      store.update((current) => ({ ...current, tokens: { access_token: "refreshed" } }));
      expect(existsSync(store.file)).toBe(false);
      expect(store.read()).toMatchObject({
        tokens: { access_token: "refreshed" },
        client: { client_id: "c" },
      });
    });

    it("reads the newer of the keychain's copy and a file written meanwhile (MCP_BRIDGE_TOKEN_STORE=file)", () => {
      const dir = tempDir();
      const store = new AuthStore(dir, "both", URL_, { keychain: keychain() });
      store.update(() => ({ tokens: { access_token: "older-in-keychain", refresh_token: "spent" } }));
      const fileOnly = new AuthStore(dir, "both", URL_, { keychain: null });
      fileOnly.update(() => ({ tokens: { access_token: "newer-in-file", refresh_token: "fresh" } }));
      expect(store.read().tokens).toEqual({ access_token: "newer-in-file", refresh_token: "fresh" });
      store.update((current) => current);
      expect(existsSync(store.file)).toBe(false);
      expect(store.read().tokens).toEqual({ access_token: "newer-in-file", refresh_token: "fresh" });
      store.clear();
    });

    it("is chosen by default when the keychain answers; MCP_BRIDGE_TOKEN_STORE=file keeps files", () => {
      expect(tokenKeychain({})).toBeDefined();
      expect(tokenKeychain({ MCP_BRIDGE_TOKEN_STORE: "file" })).toBeUndefined();
      expect(tokenKeychain({ MCP_BRIDGE_SECRET_STORE: "file" })).toBeUndefined();
    });

    it("keeps the cross-process lock: concurrent changes from many processes all land", async () => {
      const dir = tempDir();
      const processes = 8;
      const rounds = 5;
      const storeModule = pathToFileURL(resolve("dist/src/auth/store.js")).href;
      const script = `
      const { AuthStore } = await import(${JSON.stringify(storeModule)});
      const store = new AuthStore(${JSON.stringify(dir)}, "shared", ${JSON.stringify(URL_)});
      for (let i = 0; i < ${rounds}; i++)
        store.update((c) => ({ ...c, tokens: { count: (c.tokens?.count ?? 0) + 1 } }));
    `;
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: dir,
        DBUS_SESSION_BUS_ADDRESS: running.current().env.DBUS_SESSION_BUS_ADDRESS,
        MCP_BRIDGE_TOKEN_STORE: "keyring",
      };
      const codes = await Promise.all(
        Array.from(
          { length: processes },
          () =>
            new Promise<number | null>((done) => {
              const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
                env,
                stdio: "inherit",
              });
              child.on("exit", (code) => done(code));
            }),
        ),
      );
      expect(codes).toEqual(Array(processes).fill(0));
      const store = new AuthStore(dir, "shared", URL_, { keychain: keychain() });
      expect(store.read().tokens).toEqual({ count: processes * rounds });
      // Nothing but lock files (gone once released) was written beside it: the tokens are in the keychain.
      expect(readdirSync(dir).filter((name) => name.endsWith(".json"))).toEqual([]);
      store.clear();
    }, 120_000);
  },
);

describe("OAuth tokens without a reachable keychain", () => {
  it("fall back to the 0600 file when the keychain does not answer", () => {
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(tempDir(), "no-bus")}`;
    try {
      expect(tokenKeychain({})).toBeUndefined();
      const dir = tempDir();
      const store = new AuthStore(dir, "s", URL_, { keychain: tokenKeychain({}) ?? null });
      store.update(() => ({ tokens: { access_token: "in-file" } }));
      expect(existsSync(store.file)).toBe(true);
      expect(store.location).toBe(store.file);
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});
