/**
 * What a sandboxed stdio server sees, as plain data: an ordered list of mounts, the network switch,
 * the environment and the working directory. Built here from facts already gathered on the host
 * (host-facts.ts) and turned into a command line by one backend per platform (bwrap-arguments.ts,
 * sandbox-exec-profile.ts), so the choice of what is visible is made once, in pure code.
 */

import { basename, dirname, sep } from "node:path";
import type { SandboxPolicy } from "../../config/model.js";

/** `ro`/`rw`: the host path `source` shown at `path`; `tmpfs`: a private, empty, writable folder. */
export type SandboxMount =
  | { readonly kind: "ro" | "rw"; readonly path: string; readonly source: string }
  | { readonly kind: "tmpfs"; readonly path: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string };

export interface SandboxPlan {
  /** In the order they must be applied: a later mount may sit inside an earlier one. */
  readonly mounts: readonly SandboxMount[];
  readonly network: boolean;
  /** The server's whole environment (nothing else of the host's is passed). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** A path the host resolved: as written, and with every symbolic link followed (undefined: absent). */
export interface ResolvedPath {
  readonly path: string;
  readonly real: string | undefined;
}

/** What the host knows that the plan depends on (see host-facts.ts). */
export interface HostFacts {
  /** The system folders that exist, each either a folder or a symlink (merged /usr: /bin -> usr/bin). */
  readonly system: readonly ({ readonly path: string } & (
    | { readonly real: string }
    | { readonly link: string }
  ))[];
  /** The /etc entries a program needs (name resolution, certificates, locale, the dynamic linker). */
  readonly etc: readonly ResolvedPath[];
  /** The user's home: replaced by a private empty folder at the same path. */
  readonly home: string;
  /** The command, its interpreter and their install folders, plus the files named in the arguments. */
  readonly runtime: readonly ResolvedPath[];
  /** A package runner's private cache (package-cache.ts), writable: `npx`/`uvx` install into it at every start. */
  readonly caches: readonly ResolvedPath[];
  /** The grants of the policy, resolved. */
  readonly read: readonly ResolvedPath[];
  readonly write: readonly ResolvedPath[];
  /** The configured working directory (granted read-only), or the host's own (used only if granted). */
  readonly cwd: { readonly path: string; readonly configured: boolean };
}

/** `path` is `folder` or inside it. */
export function isWithin(path: string, folder: string): boolean {
  if (folder === sep) return true;
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function depth(path: string): number {
  return path.split(sep).filter(Boolean).length;
}

/**
 * The mounts in order: system folders read-only, then `/proc`-free private `/tmp` and home, then the
 * grants from the shallowest to the deepest (a deeper grant wins inside a shallower one); for one path
 * granted twice, writable wins. A grant that is a symbolic link is shown both where it was written and
 * where it leads, so a program that follows it (Node resolves its main module's real path) finds it.
 */
export function planSandbox(
  policy: SandboxPolicy,
  facts: HostFacts,
  env: Record<string, string>,
): SandboxPlan {
  const mounts: SandboxMount[] = [];
  for (const entry of facts.system) {
    if ("link" in entry) mounts.push({ kind: "symlink", path: entry.path, target: entry.link });
    else mounts.push({ kind: "ro", path: entry.path, source: entry.real });
  }
  for (const entry of facts.etc)
    if (entry.real) mounts.push({ kind: "ro", path: entry.path, source: entry.real });
  mounts.push({ kind: "tmpfs", path: "/tmp" });
  mounts.push({ kind: "tmpfs", path: facts.home });

  const systemRoots = facts.system.map((entry) => entry.path);
  const grants = new Map<string, { kind: "ro" | "rw"; source: string }>();
  const grant = (kind: "ro" | "rw", resolved: ResolvedPath) => {
    // The sandbox has its own /proc: a host path there cannot be mounted onto it (bwrap would fail).
    if (!resolved.real || isWithin(resolved.path, "/proc") || isWithin(resolved.real, "/proc")) return;
    for (const path of new Set([resolved.path, resolved.real])) {
      // Already visible through a read-only system folder (and a grant cannot make /usr writable).
      if (kind === "ro" && systemRoots.some((root) => isWithin(path, root))) continue;
      const known = grants.get(path);
      if (known?.kind === "rw") continue;
      grants.set(path, { kind, source: resolved.real });
    }
  };
  for (const entry of facts.runtime) grant("ro", entry);
  if (facts.cwd.configured) grant("ro", { path: facts.cwd.path, real: facts.cwd.path });
  for (const entry of facts.read) grant("ro", entry);
  for (const entry of facts.caches) grant("rw", entry);
  for (const entry of facts.write) grant("rw", entry);
  const ordered = [...grants.entries()].sort(([a], [b]) => depth(a) - depth(b) || a.localeCompare(b));
  const shown: string[] = [...systemRoots];
  for (const [path, { kind, source }] of ordered) {
    // A link inside a folder already shown is visible as the link itself, and leads to its target,
    // which is mounted at its real path; mounting onto it would follow it outside the new root.
    if (path !== source && shown.some((folder) => folder !== path && isWithin(path, folder))) continue;
    mounts.push({ kind, path, source });
    shown.push(path);
  }

  // The host's folder only if a grant shows it (inside the private home it would not exist).
  const visible = [...grants.keys()].some((granted) => isWithin(facts.cwd.path, granted));
  const cwd = facts.cwd.configured || visible ? facts.cwd.path : facts.home;
  return { mounts, network: policy.network, env, cwd };
}

/**
 * Folders never shown because a file inside them was named: the system's own (`/etc` holds host keys
 * and `/etc/shadow`) and the roots that hold everyone's data. A file in one is shown alone.
 */
const SYSTEM_ROOTS = new Set([
  "/etc",
  "/var",
  "/opt",
  "/srv",
  "/tmp",
  "/home",
  "/root",
  "/usr",
  "/usr/local",
  "/usr/share",
  "/usr/lib",
  "/usr/bin",
  "/mnt",
  "/media",
  "/run",
  "/boot",
  "/snap",
  "/nix",
  "/nix/store",
  "/opt/homebrew",
  "/Users",
  "/Library",
  "/System",
  "/Applications",
  "/Volumes",
  "/private",
]);
/** Folders whose insides are never inferred either: configuration, state and the kernel's own. */
const SYSTEM_TREES = [
  "/etc",
  "/var",
  "/proc",
  "/sys",
  "/dev",
  "/run",
  "/boot",
  "/private/etc",
  "/private/var",
];

/** The kernel's trees: a file there named in the arguments is not data to show (the sandbox has its own /proc and /dev). */
export function isKernelPath(path: string): boolean {
  return ["/proc", "/sys", "/dev"].some((tree) => isWithin(path, tree));
}

/**
 * Whether a folder may be shown because a program or script inside it was named (an inference, not a
 * grant the user wrote): never the root, a system folder or one inside /etc, /var, ..., never the home
 * folder, a parent of it, or a hidden folder directly in it (`~/.ssh`, `~/.config`, `~/.local`).
 */
export function isInferable(folder: string, home: string): boolean {
  if (folder === sep || SYSTEM_ROOTS.has(folder)) return false;
  if (SYSTEM_TREES.some((tree) => isWithin(folder, tree))) return false;
  if (isWithin(home, folder)) return false;
  return !(dirname(folder) === home && basename(folder).startsWith("."));
}

/**
 * The folder a program lives in, as far as the sandbox must show it: the outermost `node_modules` of
 * a package (it needs its siblings), the `<prefix>` of `<prefix>/bin/node` or `<venv>/bin/python`
 * (the prefix holds its libraries), else its own folder; the file alone when that folder may not be
 * inferred (see isInferable).
 */
export function installRoot(file: string, home: string): string {
  const root = packageRoot(file) ?? dirname(file);
  return isInferable(root, home) ? root : file;
}

/** The outermost `node_modules` above a file, or the `<prefix>` of a file in `<prefix>/bin`; else undefined. */
export function packageRoot(file: string): string | undefined {
  const parts = file.split(sep);
  const modules = parts.indexOf("node_modules");
  if (modules > 0) return parts.slice(0, modules + 1).join(sep);
  const folder = dirname(file);
  return folder.endsWith(`${sep}bin`) ? dirname(folder) : undefined;
}
