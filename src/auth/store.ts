import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { tokenFileUnsafe } from "../errors/index.js";
import { withFileLockSync } from "../util/file-lock.js";
import { isRegularOrAbsent, readPrivateFile, writePrivateFile } from "../util/private-file.js";
import { ensurePrivateDir } from "../util/private-path.js";
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

/**
 * One JSON file per server (named by a hash of server name and URL, so a server moved to another URL
 * does not reuse tokens meant for the old one), mode 0600 in a 0700 directory. An existing folder that
 * is a link, another user's or writable by others is refused; a token file that is a symbolic link is never read or
 * written through (another user or program could point it at a file it controls or wants clobbered).
 */
export class AuthStore {
  readonly file: string;

  constructor(
    readonly dir: string,
    server: string,
    url: string,
    /**
     * Whose tokens these are, when not the user's own: a gateway client's identity (per-caller mode of
     * `serve`). Part of the file's name, so one caller's lookup can never read another's tokens.
     */
    caller?: string,
  ) {
    const key = caller === undefined ? `${server}\0${url}` : `${server}\0${url}\0caller\0${caller}`;
    const id = createHash("sha256").update(key).digest("hex").slice(0, 16);
    this.file = join(dir, `${id}.json`);
  }

  /** The stored registration and tokens; empty when there are none or the file is a link (refused). */
  read(): StoredAuth {
    const text = readPrivateFile(this.file);
    if (text === undefined) return {};
    try {
      return JSON.parse(text) as StoredAuth;
    } catch {
      return {};
    }
  }

  update(change: (current: StoredAuth) => StoredAuth): void {
    if (!isRegularOrAbsent(this.file)) {
      throw tokenFileUnsafe({ file: this.file });
    }
    // Under the file's lock: a login and a running bridge refreshing tokens at once must not lose either.
    ensurePrivateDir(this.dir, { what: "OAuth token folder" });
    withFileLockSync(this.file, () => {
      const next = { ...change(this.read()), savedAt: new Date().toISOString() };
      writePrivateFile(this.file, JSON.stringify(next, null, 2), "OAuth token");
    });
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
