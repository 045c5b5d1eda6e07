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
  /**
   * When the access token expires (ISO time), from the token endpoint's `expires_in` when the token was
   * obtained; `savedAt` cannot say it, since other changes (the issuer stamp, a registration) rewrite it.
   */
  expiresAt?: string;
}

/**
 * `current` with `tokens` stored: a new access token (a login or a refresh) gets its expiry from its
 * `expires_in`, counted from now; the same access token saved again (the SDK stamping the issuer)
 * keeps the expiry it had.
 */
export function withTokens(current: StoredAuth, tokens: Record<string, unknown>): StoredAuth {
  const { expiresAt: _previous, ...rest } = current;
  const next: StoredAuth = { ...rest, tokens };
  if (current.tokens?.access_token === tokens.access_token && current.tokens !== undefined) {
    return current.expiresAt === undefined ? next : { ...next, expiresAt: current.expiresAt };
  }
  const lifetime = tokens.expires_in;
  if (typeof lifetime === "number" && Number.isFinite(lifetime) && lifetime > 0) {
    next.expiresAt = new Date(Date.now() + lifetime * 1000).toISOString();
  }
  return next;
}

/** When the stored access token expires (ms since the epoch); undefined when it did not say. */
export function expiryOf({ tokens, savedAt, expiresAt }: StoredAuth): number | undefined {
  if (expiresAt !== undefined) return Date.parse(expiresAt);
  // Stores written before `expiresAt` existed: the best guess is the last save.
  const lifetime = tokens?.expires_in;
  if (typeof lifetime !== "number" || savedAt === undefined) return undefined;
  return Date.parse(savedAt) + lifetime * 1000;
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
  /**
   * Whose tokens these are, when not the user's own: a gateway client's identity (per-caller mode of
   * `serve`). Part of the key, so one caller's lookup can never read another's tokens.
   */
  readonly caller?: string;
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
    const { caller } = options;
    const key = caller === undefined ? `${server}\0${url}` : `${server}\0${url}\0caller\0${caller}`;
    this.#id = createHash("sha256").update(key).digest("hex").slice(0, 16);
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
