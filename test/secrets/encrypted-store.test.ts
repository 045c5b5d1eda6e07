import { chmodSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSecretStore } from "../../src/util/secret-store.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcpb-secrets-file-");
const SECRET = "sk-live-0123456789abcdef";

/** The file store as MCP_BRIDGE_SECRET_STORE=file chooses it, under a fresh private config folder. */
function fileEnv(extra: Record<string, string> = {}) {
  const home = tempDir();
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    MCP_BRIDGE_SECRET_STORE: "file",
    MCP_BRIDGE_SECRET_PASSPHRASE: "correct horse battery staple",
    ...extra,
  };
}
const fileOf = (env: { XDG_CONFIG_HOME: string }) => join(env.XDG_CONFIG_HOME, "mcp-bridge", "secrets.enc");

describe("the encrypted file store", () => {
  it("stores, lists, reads and removes secrets in a 0600 file that holds no plaintext", () => {
    const env = fileEnv();
    const store = openSecretStore(env);
    expect(store.kind).toBe("file");
    store.set("GITHUB_TOKEN", SECRET);
    store.set("OTHER", "second-value-xyz");
    expect(store.names()).toEqual(["GITHUB_TOKEN", "OTHER"]);
    // A second process (a new store, a new key derivation) reads what the first wrote.
    expect(openSecretStore(env).get("GITHUB_TOKEN")).toBe(SECRET);
    const file = fileOf(env);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_CONFIG_HOME, "mcp-bridge")).mode & 0o777).toBe(0o700);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("GITHUB_TOKEN");
    expect(store.remove("GITHUB_TOKEN")).toBe(true);
    expect(store.remove("GITHUB_TOKEN")).toBe(false);
    expect(openSecretStore(env).names()).toEqual(["OTHER"]);
  });

  it("refuses a wrong passphrase without revealing anything", () => {
    const env = fileEnv();
    openSecretStore(env).set("K", SECRET);
    const wrong = openSecretStore({ ...env, MCP_BRIDGE_SECRET_PASSPHRASE: "wrong" });
    expect(() => wrong.get("K")).toThrow(
      expect.objectContaining({
        code: "SECRET_STORE_FAILED",
        message: expect.stringContaining("key is wrong"),
      }),
    );
    // Nor can a write with the wrong key replace the file (it would lose the secrets).
    expect(() => wrong.set("K2", "x")).toThrow(expect.objectContaining({ code: "SECRET_STORE_FAILED" }));
    expect(openSecretStore(env).get("K")).toBe(SECRET);
  });

  it("refuses a tampered file: a changed ciphertext byte, salt or key-derivation parameter", () => {
    const env = fileEnv();
    openSecretStore(env).set("K", SECRET);
    const file = fileOf(env);
    const sealed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const data = Buffer.from(sealed.data as string, "base64");
    data[0] = (data[0] as number) ^ 1;
    const tampers = [
      { ...sealed, data: data.toString("base64") },
      { ...sealed, iv: Buffer.alloc(12).toString("base64") },
      // A tag cut short (GCM would otherwise check only the bytes given).
      {
        ...sealed,
        tag: Buffer.from(sealed.tag as string, "base64")
          .subarray(0, 4)
          .toString("base64"),
      },
      { ...sealed, kdf: { name: "scrypt", N: 2 ** 14, r: 8, p: 1 } },
      { ...sealed, kdf: { name: "scrypt", N: 2 ** 30, r: 8, p: 1 } },
    ];
    for (const tampered of tampers) {
      writeFileSync(file, JSON.stringify(tampered), { mode: 0o600 });
      expect(() => openSecretStore(env).get("K")).toThrow(
        expect.objectContaining({ code: "SECRET_STORE_FAILED" }),
      );
    }
    writeFileSync(file, "not json", { mode: 0o600 });
    expect(() => openSecretStore(env).get("K")).toThrow(/not an mcp-bridge secret file/);
  });

  it("never reads or writes through a link planted at the path, nor a file others can read", () => {
    const env = fileEnv();
    const store = openSecretStore(env);
    store.set("K", SECRET);
    const file = fileOf(env);
    chmodSync(file, 0o644);
    expect(() => store.get("K")).toThrow(/lets others read/);
    const elsewhere = join(tempDir(), "target");
    writeFileSync(elsewhere, "precious");
    const linked = fileEnv();
    openSecretStore(linked).set("first", "value-one");
    const linkedFile = fileOf(linked);
    writeFileSync(`${linkedFile}.moved`, readFileSync(linkedFile));
    // Replace the store by a link to a file the attacker wants clobbered.
    rmSync(linkedFile);
    symlinkSync(elsewhere, linkedFile);
    expect(() => openSecretStore(linked).set("K", SECRET)).toThrow(/symbolic link/);
    expect(() => openSecretStore(linked).get("K")).toThrow(/symbolic link/);
    expect(readFileSync(elsewhere, "utf8")).toBe("precious");
  });

  it("takes the key from a key file of the user's own (0600), refusing a loose one", () => {
    const dir = tempDir();
    const keyFile = join(dir, "key");
    writeFileSync(keyFile, "a-long-random-key-from-a-file\n", { mode: 0o600 });
    const env = fileEnv({ MCP_BRIDGE_SECRET_KEY_FILE: keyFile });
    const { MCP_BRIDGE_SECRET_PASSPHRASE: _unused, ...keyOnly } = env;
    openSecretStore(keyOnly).set("K", SECRET);
    expect(openSecretStore(keyOnly).get("K")).toBe(SECRET);
    chmodSync(keyFile, 0o640);
    expect(() => openSecretStore(keyOnly).get("K")).toThrow(/MCP_BRIDGE_SECRET_KEY_FILE/);
  });

  it("is chosen explicitly: without a key it says how to give one; an unknown store is refused", () => {
    const { MCP_BRIDGE_SECRET_PASSPHRASE: _unused, ...noKey } = fileEnv();
    expect(() => openSecretStore(noKey)).toThrow(/MCP_BRIDGE_SECRET_PASSPHRASE/);
    expect(() => openSecretStore({ MCP_BRIDGE_SECRET_STORE: "vault" })).toThrow(/"keyring".*"file"/);
  });
});
