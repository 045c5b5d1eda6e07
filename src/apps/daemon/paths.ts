import { lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { daemonFolderUnsafe } from "../../errors/daemon-errors.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where one config's daemon lives: its socket, its pid file (the lock) and its log. */
export interface DaemonPaths {
  readonly folder: string;
  readonly socket: string;
  readonly pidFile: string;
  readonly log: string;
  /** The absolute config path the daemon serves (the key of the file names). */
  readonly config: string;
}

function uid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/**
 * The user's runtime folder for daemons: `$XDG_RUNTIME_DIR/mcp-bridge`, else `mcp-bridge-<uid>` in the
 * system temp folder. Only a folder the user owns with no access for others is used, so no other user
 * can reach a daemon's socket (or plant one for our CLI to talk to).
 */
export function runtimeFolder(env: Env): string {
  const id = uid();
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, "mcp-bridge");
  return join(tmpdir(), `mcp-bridge-${id ?? "user"}`);
}

/** Why a folder is unsafe for sockets, or undefined when it is a 0700 directory of ours. */
export function unsafeFolderReason(folder: string): string | undefined {
  const stat = lstatSync(folder);
  if (!stat.isDirectory()) return "it is not a directory (a symlink or a file)";
  const id = uid();
  if (id !== undefined && stat.uid !== id) return `it is owned by uid ${stat.uid}, not by this user (${id})`;
  if ((stat.mode & 0o077) !== 0)
    return `its mode is ${(stat.mode & 0o777).toString(8)}; only its owner may have access (0700)`;
  return undefined;
}

/** Creates the runtime folder (0700) when missing; throws when it exists but is not safely ours. */
export function ensureRuntimeFolder(env: Env): string {
  const folder = runtimeFolder(env);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const reason = unsafeFolderReason(folder);
  if (reason) throw daemonFolderUnsafe({ folder, reason });
  return folder;
}

/** The paths of the daemon for `config` (made absolute against `cwd`); nothing is created. */
export function daemonPaths(config: string, cwd: string, env: Env): DaemonPaths {
  const absolute = resolve(cwd, config);
  const folder = runtimeFolder(env);
  // A hash keeps the name short (a socket path is limited to ~104 bytes) and free of the path's characters.
  const key = pathKey(absolute);
  return {
    folder,
    socket: join(folder, `${key}.sock`),
    pidFile: join(folder, `${key}.pid`),
    log: join(folder, `${key}.log`),
    config: absolute,
  };
}

/**
 * 64 bits of hash of a path, as 16 hex digits: FNV-1a twice with different offsets. Not node:crypto,
 * whose loading costs the CLI's fast path more than its whole request; the daemon also checks the
 * config path each request names, so even a collision could not route a command to the wrong config.
 */
export function pathKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (a >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}
