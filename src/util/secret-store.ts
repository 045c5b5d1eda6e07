import { homedir } from "node:os";
import { join } from "node:path";
import { McpBridgeError } from "../errors/error-classes.js";
import {
  keyringUnavailable,
  secretKeyMissing,
  secretNameInvalid,
  secretStoreUnknown,
} from "../errors/secret-errors.js";
import { EncryptedSecretFile } from "./encrypted-secrets.js";
import { napiKeyring } from "./lazy-modules.js";

/**
 * Where `${keyring:NAME}` and `mcp-bridge secrets` keep secrets: the OS credential store by default
 * (Secret Service on Linux, the macOS Keychain, Windows Credential Manager, through @napi-rs/keyring),
 * or an encrypted file when MCP_BRIDGE_SECRET_STORE=file says so. The choice is never made silently:
 * an unreachable keychain is an error naming the file store, not a quiet switch to a file.
 */
export interface SecretStore {
  readonly kind: "keyring" | "file";
  /** Where the secrets are, for messages ("the OS credential store", "the encrypted file …"). */
  readonly where: string;
  /** The value, or undefined when the store holds none under this name. */
  get(name: string): string | undefined;
  set(name: string, value: string): void;
  /** True when a secret was removed. */
  remove(name: string): boolean;
  /** The names stored (never the values), sorted. */
  names(): string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** The keychain service under which `${keyring:NAME}` secrets are kept (account: NAME). */
export const SECRET_SERVICE = "mcp-bridge";
/** The keychain service for OAuth tokens (account: the token store's id of server and URL). */
export const TOKEN_SERVICE = "mcp-bridge-oauth";

const NAME = /^[A-Za-z0-9._-]{1,128}$/;

export function assertSecretName(name: string): void {
  if (!NAME.test(name)) throw secretNameInvalid({ name });
}

/** `$XDG_CONFIG_HOME/mcp-bridge/secrets.enc`, or MCP_BRIDGE_SECRET_FILE. */
export function secretFilePath(env: Env): string {
  if (env.MCP_BRIDGE_SECRET_FILE) return env.MCP_BRIDGE_SECRET_FILE;
  const home = env.HOME || homedir();
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "mcp-bridge", "secrets.enc");
}

/** The store the environment chooses (MCP_BRIDGE_SECRET_STORE: keyring, the default, or file). */
export function openSecretStore(env: Env): SecretStore {
  const choice = (env.MCP_BRIDGE_SECRET_STORE ?? "keyring").trim().toLowerCase();
  if (choice === "file") return fileStore(env);
  if (choice === "keyring" || choice === "")
    return new KeyringStore(SECRET_SERVICE, "the OS credential store");
  throw secretStoreUnknown({ value: choice });
}

function fileStore(env: Env): SecretStore {
  const file = secretFilePath(env);
  const passphrase = env.MCP_BRIDGE_SECRET_PASSPHRASE;
  const keyFile = env.MCP_BRIDGE_SECRET_KEY_FILE;
  if (!passphrase && !keyFile) throw secretKeyMissing({ file });
  const sealed = new EncryptedSecretFile(file, passphrase ? { passphrase } : { keyFile: keyFile as string });
  return {
    kind: "file",
    where: `the encrypted file ${file}`,
    get: (name) => sealed.read()[name],
    set: (name, value) => sealed.update((secrets) => ({ ...secrets, [name]: value })),
    remove: (name) => {
      let removed = false;
      sealed.update((secrets) => {
        removed = name in secrets;
        const { [name]: _gone, ...rest } = secrets;
        return rest;
      });
      return removed;
    },
    names: () => Object.keys(sealed.read()).sort(),
  };
}

/**
 * The OS credential store. On Linux the entry is pinned to the Secret Service: the kernel keyring the
 * binding would otherwise fall back to forgets everything at logout, a silent loss.
 */
export class KeyringStore implements SecretStore {
  readonly kind = "keyring";

  constructor(
    readonly service: string,
    readonly where: string,
  ) {}

  get(name: string): string | undefined {
    return this.call(() => this.entry(name).getPassword() ?? undefined);
  }

  set(name: string, value: string): void {
    this.call(() => this.entry(name).setPassword(value));
  }

  remove(name: string): boolean {
    return this.call(() => this.entry(name).deletePassword());
  }

  names(): string[] {
    return this.call(() =>
      napiKeyring()
        .findCredentials(this.service)
        .map((found) => found.account),
    ).sort();
  }

  private entry(name: string) {
    return new (napiKeyring().Entry)(this.service, name, { linux: { store: "secret-service" } });
  }

  /** Runs a keychain call; the platform's failure becomes SECRET_STORE_FAILED (a load failure stays). */
  private call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof McpBridgeError) throw error;
      throw keyringUnavailable({
        detail: error instanceof Error ? error.message : String(error),
        cause: error,
      });
    }
  }
}
