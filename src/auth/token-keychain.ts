import { KeyringStore, TOKEN_SERVICE } from "../util/secret-store.js";

/**
 * Where OAuth tokens live: in the OS credential store when one answers, else in the token files (the
 * fallback, and the store of every earlier version). MCP_BRIDGE_TOKEN_STORE=file keeps them in files;
 * =keyring requires the keychain (a failure is then an error rather than a file); auto (or unset), the
 * keychain is used when it works. The encrypted file store (MCP_BRIDGE_SECRET_STORE=file) is for `${keyring:…}`
 * values: with it chosen, tokens stay in their own 0600 files.
 */
export interface TokenKeychain {
  read(id: string): string | undefined;
  write(id: string, text: string): void;
  remove(id: string): void;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Whether the keychain answered, by bus address: probed once per process (a probe costs a round trip). */
const answered = new Map<string, boolean>();

export function tokenKeychain(env: Env = process.env): TokenKeychain | undefined {
  const choice = env.MCP_BRIDGE_TOKEN_STORE?.trim().toLowerCase();
  if (choice === "file") return undefined;
  const store = new KeyringStore(TOKEN_SERVICE, "the OS credential store");
  const keychain: TokenKeychain = {
    read: (id) => store.get(id),
    write: (id, text) => store.set(id, text),
    remove: (id) => {
      store.remove(id);
    },
  };
  if (choice === "keyring") return keychain;
  if (env.MCP_BRIDGE_SECRET_STORE?.trim().toLowerCase() === "file") return undefined;
  // The binding reads the session bus from the real environment, so that is what the probe is keyed by.
  const key = process.env.DBUS_SESSION_BUS_ADDRESS ?? "";
  let works = answered.get(key);
  if (works === undefined) {
    try {
      store.get("probe");
      works = true;
    } catch {
      works = false;
    }
    answered.set(key, works);
  }
  return works ? keychain : undefined;
}
