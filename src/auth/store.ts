import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ErrorCode, McpBridgeError } from "../errors.js";

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

// Windows has no O_NOFOLLOW; there the lstat check before opening is what refuses a link.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const isWindows = process.platform === "win32";

/**
 * One JSON file per server (named by a hash of server name and URL, so a server moved to another URL
 * does not reuse tokens meant for the old one), mode 0600 in a 0700 directory. A folder that already
 * exists with looser permissions is tightened; a token file that is a symbolic link is never read or
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
    if (!this.#isRegularOrAbsent()) return {};
    this.#tightenDir(false);
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | NO_FOLLOW);
    } catch {
      return {};
    }
    try {
      if (!fstatSync(fd).isFile()) return {};
      return JSON.parse(readFileSync(fd, "utf8")) as StoredAuth;
    } catch {
      return {};
    } finally {
      closeSync(fd);
    }
  }

  update(change: (current: StoredAuth) => StoredAuth): void {
    if (!this.#isRegularOrAbsent()) {
      throw new McpBridgeError(
        ErrorCode.Auth,
        `The OAuth token file ${this.file} is a symbolic link or not a regular file; mcp-bridge refuses to write tokens through it. Delete it and log in again (\`mcp-bridge auth login\`).`,
      );
    }
    const next = { ...change(this.read()), savedAt: new Date().toISOString() };
    this.#tightenDir(true);
    // Write a fresh private file and rename it over the old one: the rename replaces a link placed
    // meanwhile instead of following it, and a crash never leaves a half-written token file.
    const temporary = join(this.dir, `.${randomBytes(6).toString("hex")}.tmp`);
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
      0o600,
    );
    try {
      writeSync(fd, JSON.stringify(next, null, 2));
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temporary, this.file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }

  #isRegularOrAbsent(): boolean {
    try {
      return lstatSync(this.file).isFile();
    } catch {
      return true;
    }
  }

  /** Creates the folder 0700, or removes group/other access from one that exists. */
  #tightenDir(create: boolean): void {
    if (create) mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    if (isWindows) return;
    try {
      if ((statSync(this.dir).mode & 0o077) !== 0) chmodSync(this.dir, 0o700);
    } catch (error) {
      if (create) throw error;
    }
  }
}
