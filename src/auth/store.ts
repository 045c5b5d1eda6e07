import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

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
 * does not reuse tokens meant for the old one), mode 0600 in a 0700 directory.
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

  read(): StoredAuth {
    try {
      return JSON.parse(readFileSync(this.file, "utf8")) as StoredAuth;
    } catch {
      return {};
    }
  }

  update(change: (current: StoredAuth) => StoredAuth): void {
    const next = { ...change(this.read()), savedAt: new Date().toISOString() };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(this.file, JSON.stringify(next, null, 2), { mode: 0o600 });
    chmodSync(this.file, 0o600);
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
