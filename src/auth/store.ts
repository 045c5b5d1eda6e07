import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { tokenFileUnsafe } from "../errors/index.js";
import { withFileLockSync } from "../util/file-lock.js";
import { isRegularOrAbsent, readPrivateFile, writePrivateFile } from "../util/private-file.js";
import { ensurePrivateDir } from "../util/private-path.js";
import { type TokenKeychain, tokenKeychain } from "./token-keychain.js";

/** What is kept per server between runs: the client registration and the tokens. Never logged. */
export interface StoredAuth {
  client?: Record<string, unknown>;
  tokens?: Record<string, unknown>;
  redirectUri?: string;
  /** The authorization server that issued the registration and tokens. */
  issuer?: string;
  savedAt?: string;
}

export function defaultAuthDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const home = env.HOME ?? homedir();
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "mcp-bridge", "auth");
}

export interface AuthStoreOptions {
  /**
   * The OS credential store to keep the JSON in, or null for the file. Default: the keychain when one
   * answers (see tokenKeychain), else the file.
   */
  readonly keychain?: TokenKeychain | null;
}

/**
 * One JSON document per server (keyed by a hash of server name and URL, so a server moved to another
 * URL does not reuse tokens meant for the old one): in the OS credential store when one is available,
 * else a file, mode 0600 in a 0700 directory. Either way every change is made under the file's lock
 * (and refreshes under `${file}.refresh`'s, see refresh.ts), so processes sharing a login stay in step.
 * An existing folder that is a link, another user's or writable by others is refused; a token file
 * that is a symbolic link is never read or written through (another user or program could point it at
 * a file it controls or wants clobbered).
 */
export class AuthStore {
  readonly file: string;
  readonly #id: string;
  readonly #keychain: TokenKeychain | undefined;

  constructor(
    readonly dir: string,
    server: string,
    url: string,
    options: AuthStoreOptions = {},
  ) {
    this.#id = createHash("sha256").update(`${server}\0${url}`).digest("hex").slice(0, 16);
    this.file = join(dir, `${this.#id}.json`);
    this.#keychain = options.keychain === undefined ? tokenKeychain() : (options.keychain ?? undefined);
  }

  /** Where the tokens are kept, for messages: the OS credential store or the file's path. */
  get location(): string {
    return this.#keychain ? "the OS credential store" : this.file;
  }

  /** Whether anything is stored (a registration, tokens). */
  exists(): boolean {
    return Object.keys(this.read()).length > 0;
  }

  /**
   * The stored registration and tokens; empty when there are none or the file is a link (refused).
   * With the keychain, a file beside it (a login saved before the keychain was used, or by a run with
   * MCP_BRIDGE_TOKEN_STORE=file) is read too and the newer one wins: an older copy's refresh token may
   * be spent already. The next change moves the winner into the keychain.
   */
  read(): StoredAuth {
    const file = parsed(readPrivateFile(this.file));
    if (!this.#keychain) return file;
    const kept = parsed(this.#keychain.read(this.#id));
    if (Object.keys(file).length === 0) return kept;
    // A tie goes to the file: after a move the file is gone, so one still there was written since.
    return (file.savedAt ?? "") >= (kept.savedAt ?? "") ? file : kept;
  }

  update(change: (current: StoredAuth) => StoredAuth): void {
    if (!isRegularOrAbsent(this.file)) {
      throw tokenFileUnsafe({ file: this.file });
    }
    // Under the file's lock: a login and a running bridge refreshing tokens at once must not lose either.
    ensurePrivateDir(this.dir, { what: "OAuth token folder" });
    withFileLockSync(this.file, () => {
      const next = { ...change(this.read()), savedAt: new Date().toISOString() };
      const text = JSON.stringify(next, null, 2);
      if (!this.#keychain) return writePrivateFile(this.file, text, "OAuth token");
      this.#keychain.write(this.#id, text);
      // Moved into the keychain: a token left in a file would outlive a logout.
      rmSync(this.file, { force: true });
    });
  }

  clear(): void {
    this.#keychain?.remove(this.#id);
    rmSync(this.file, { force: true });
  }
}

function parsed(text: string | undefined): StoredAuth {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as StoredAuth;
  } catch {
    return {};
  }
}
