/**
 * The file-system facts a sandbox plan needs, read from the host once per start: which system folders
 * exist, where the command and its interpreter are installed, which files the arguments name, which
 * package-runner caches exist. Everything that touches the disk for the sandbox is here; the choice of
 * mounts is the pure `planSandbox`.
 */

import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import type { SandboxPolicy } from "../../config/model.js";
import {
  type HostFacts,
  installRoot,
  isInferable,
  isKernelPath,
  isWithin,
  packageRoot,
  type ResolvedPath,
} from "./sandbox-plan.js";

/** Read-only system folders (a merged-/usr system has /bin, /lib... as symlinks into /usr). */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The /etc entries shown (not the whole /etc, which holds host keys, credentials of system services
 * and, for root, /etc/shadow): users and groups, name resolution, certificates, time zone, the
 * dynamic linker, `alternatives` (many /usr/bin commands are links through it), Python's config.
 */
const ETC_ENTRIES = [
  "passwd",
  "group",
  "hosts",
  "host.conf",
  "resolv.conf",
  "nsswitch.conf",
  "gai.conf",
  "protocols",
  "services",
  "localtime",
  "timezone",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "crypto-policies",
  "alternatives",
  "mime.types",
  "os-release",
];

/** Commands that fetch and run packages (the sandbox points them into a private cache: package-cache.ts). */
const RUNNERS = new Set(["npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "bun", "uvx", "uv", "pipx"]);

function runnerName(command: string): string {
  return basename(command).replace(/\.(cmd|exe)$/i, "");
}

/** `npx`, `uvx` and the like, which install into a cache at every start. */
export function isPackageRunner(command: string): boolean {
  return RUNNERS.has(runnerName(command));
}

export function resolvePath(path: string): ResolvedPath {
  try {
    return { path, real: realpathSync(path) };
  } catch {
    return { path, real: undefined };
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The command as `spawn` would find it: a path (from `cwd`), else the first executable on PATH. */
export function findCommand(command: string, path: string | undefined, cwd: string): string | undefined {
  if (command.includes("/")) {
    const full = resolve(cwd, command);
    return isFile(full) ? full : undefined;
  }
  for (const folder of (path ?? "").split(delimiter)) {
    if (!folder || !isAbsolute(folder)) continue;
    const candidate = join(folder, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (isFile(candidate)) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The interpreter a script names on its `#!` line (`/usr/bin/env node` names `node`). */
function interpreterOf(file: string, path: string | undefined, cwd: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(256);
    const read = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, read).toString("latin1");
    if (!text.startsWith("#!")) return undefined;
    const words = (text.slice(2).split("\n")[0] ?? "").trim().split(/\s+/);
    const [program, ...rest] = words;
    if (!program) return undefined;
    const named = basename(program) === "env" ? rest.find((word) => !word.startsWith("-")) : program;
    return named === undefined ? undefined : findCommand(named, path, cwd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether a file starts with `#!` (a script the kernel runs through the interpreter it names). */
function hasShebang(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head.toString("latin1") === "#!";
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Extensions of the programs an interpreter is given (`node server.js`, `python server.py`, `java -jar x.jar`). */
const SCRIPT_EXTENSION =
  /\.(?:[cm]?js|[cm]?ts|jsx|tsx|py[cwz]?|rb|pl|php|lua|sh|bash|zsh|jar|wasm|r|jl|exs?|dart|swift|kts?|groovy)$/i;

/**
 * Whether a file named in the arguments is the program the command runs, rather than data: by its
 * extension or its `#!` line, not its mode (a data file may have the x bit, as /etc/hostname does on
 * some systems).
 */
function isScript(file: string): boolean {
  return SCRIPT_EXTENSION.test(file) || hasShebang(file);
}

/**
 * What the sandbox shows of a script (the first script argument, or a command that is a script): the
 * file, the package it belongs to inside `node_modules` or a `<prefix>/bin`, and its project where a
 * project marker shows one; never its folder merely because it is there.
 */
function scriptFolders(file: string, real: string, home: string): string[] {
  const folders: string[] = [];
  for (const path of new Set([real, file])) {
    const root = packageRoot(path);
    if (root !== undefined && isInferable(root, home)) folders.push(root);
  }
  const project = projectRoot(real, home);
  // A linked node_modules (workspaces, a shared checkout) is shown where it leads too.
  if (project !== undefined) folders.push(project, join(project, "node_modules"));
  return folders;
}

/**
 * The command, what runs it (a script's interpreter, two levels deep) and their install folders; the
 * first script argument with its project; every other existing file named in the arguments alone, as
 * data (read-only, never its folder).
 */
function runtimeOf(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  home: string,
): ResolvedPath[] {
  const found: ResolvedPath[] = [];
  const addProgram = (file: string) => {
    const resolved = resolvePath(file);
    found.push(resolved);
    if (resolved.real === undefined) return undefined;
    const script = hasShebang(resolved.real);
    const folders = script
      ? scriptFolders(file, resolved.real, home)
      : // Where it was written too (a linked node_modules): Node loads its siblings from that path.
        [installRoot(resolved.real, home), installRoot(file, home)];
    for (const folder of folders) found.push(resolvePath(folder));
    return script ? interpreterOf(resolved.real, env.PATH, cwd) : undefined;
  };
  let program = findCommand(command, env.PATH, cwd);
  for (let level = 0; program !== undefined && level < 3; level++) program = addProgram(program);
  let scriptSeen = false;
  for (const arg of args) {
    if (arg.startsWith("-")) continue;
    const full = resolve(cwd, arg);
    if (isKernelPath(full) || !isFile(full)) continue;
    const resolved = resolvePath(full);
    found.push(resolved);
    if (scriptSeen || resolved.real === undefined || !isScript(resolved.real)) continue;
    scriptSeen = true;
    for (const folder of scriptFolders(full, resolved.real, home)) found.push(resolvePath(folder));
  }
  return found;
}

const PROJECT_FILES = [
  "package.json",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "go.mod",
  "Cargo.toml",
  "deno.json",
  "Gemfile",
  "composer.json",
  "pom.xml",
  "build.gradle",
];

/**
 * The project a script belongs to (the nearest folder above it with a package.json, pyproject.toml,
 * ...), whose dependencies the script loads; never a folder that may not be inferred (the home
 * folder, a parent of it, a hidden folder in it, a system folder).
 */
function projectRoot(file: string, home: string): string | undefined {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    if (isWithin(home, folder)) return undefined;
    if (!PROJECT_FILES.some((name) => isFile(join(folder, name)))) continue;
    return isInferable(folder, home) ? folder : undefined;
  }
  return undefined;
}

function systemFolders(): HostFacts["system"] {
  const found: HostFacts["system"][number][] = [];
  for (const path of SYSTEM_FOLDERS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) found.push({ path, link: readlinkSync(path) });
      else if (stat.isDirectory()) found.push({ path, real: path });
    } catch {
      // absent on this system
    }
  }
  return found;
}

/** Gathers the facts for one server's sandbox. `cwd`: the configured one, else undefined. */
export function hostFacts(input: {
  readonly policy: SandboxPolicy;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string | undefined;
  readonly hostCwd: string;
  readonly home: string;
  /** The server's private package cache (package-cache.ts), for a package runner. */
  readonly cache?: string | undefined;
}): HostFacts {
  const { policy, command, args, env, home } = input;
  const cwd = input.cwd ?? input.hostCwd;
  return {
    system: systemFolders(),
    etc: ETC_ENTRIES.map((name) => resolvePath(join("/etc", name))),
    home,
    runtime: runtimeOf(command, args, env, cwd, home),
    caches: input.cache === undefined ? [] : [resolvePath(input.cache)],
    read: policy.read.map(resolvePath),
    write: policy.write.map(resolvePath),
    cwd: { path: cwd, configured: input.cwd !== undefined },
  };
}
