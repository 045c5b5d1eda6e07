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
  ) {
    const id = createHash("sha256").update(`${server}\0${url}`).digest("hex").slice(0, 16);
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
