import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { dirname } from "node:path";
import { type PolicySettings, readPolicySetting } from "../config/policy-settings.js";
import { notAFile } from "../errors/file-errors.js";
import { policyUnusable } from "../errors/index.js";

/**
 * The managed policy: a file an administrator puts outside the user's reach (`/etc/mcp-bridge/policy.json`,
 * or the file `MCP_BRIDGE_POLICY_FILE` names), holding a `policy` object (or `{ "policy": {...} }`).
 * It is believed only when nobody but its owner (root or this user) can change it: the file and every
 * folder above it belong to root or to this user and are not writable by group or others (a sticky
 * folder such as /tmp excepted: others cannot replace what is in it). A file that fails the check, or
 * that a set `MCP_BRIDGE_POLICY_FILE` names but is missing or unreadable, is not skipped: it is
 * enforced as "deny every call" with the problem as the reason (fail closed).
 */

export const SYSTEM_POLICY_FILE = "/etc/mcp-bridge/policy.json";
export const POLICY_FILE_VARIABLE = "MCP_BRIDGE_POLICY_FILE";

const isWindows = process.platform === "win32";

/** The managed policy file's parsed content, or why it cannot be used; undefined when there is none. */
function readManagedFile(
  env: Readonly<Record<string, string | undefined>>,
): { data: unknown } | { unusable: string; where: string } | undefined {
  const named = env[POLICY_FILE_VARIABLE];
  const file = named || (isWindows ? undefined : SYSTEM_POLICY_FILE);
  if (file === undefined) return undefined;
  const where = `The managed policy file ${file}`;
  let text: string;
  try {
    const real = realpathSync(file);
    const problem = isWindows ? undefined : ownershipProblem(real);
    if (problem !== undefined) return { unusable: problem, where };
    text = readNoFollow(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !named) return undefined;
    return {
      unusable: code === "ENOENT" ? "it does not exist" : `it cannot be read: ${code ?? "error"}`,
      where,
    };
  }
  try {
    return { data: JSON.parse(text) };
  } catch {
    return { unusable: "it is not valid JSON", where };
  }
}

/** The managed policy in force; undefined when there is none. Read afresh on each call (start, reload). */
export function loadManagedPolicy(
  env: Readonly<Record<string, string | undefined>>,
): PolicySettings | undefined {
  const read = readManagedFile(env);
  if (read === undefined) return undefined;
  const where = "where" in read ? read.where : "";
  const unusable = (problem: string): PolicySettings => ({
    default: "deny",
    rules: [],
    unusable: policyUnusable({
      where: where || `The managed policy file ${env[POLICY_FILE_VARIABLE] || SYSTEM_POLICY_FILE}`,
      problem,
    }),
  });
  if ("unusable" in read) return unusable(read.unusable);
  const data = read.data;
  const raw = isObject(data) && isObject(data.policy) ? data.policy : data;
  const policy = readPolicySetting(raw);
  if (policy.unusable !== undefined) return unusable(policy.unusable);
  return policy;
}

/**
 * The managed policy's `registries`: where every server must come from (a registry address, a server
 * name glob, a version range). Undefined when the file sets none. A file that cannot be used refuses
 * every server with its problem (fail closed), as it denies every call.
 */
export function loadManagedRegistries(
  env: Readonly<Record<string, string | undefined>>,
): { allowed: readonly AllowedRegistry[] } | { unusable: string } | undefined {
  const read = readManagedFile(env);
  if (read === undefined) return undefined;
  if ("unusable" in read) return { unusable: policyUnusable({ where: read.where, problem: read.unusable }) };
  const list = isObject(read.data) ? read.data.registries : undefined;
  if (list === undefined) return undefined;
  const parsed = Array.isArray(list) ? list.map(allowedRegistryOf) : [undefined];
  if (parsed.length === 0 || parsed.some((r) => r === undefined))
    return {
      unusable: policyUnusable({
        where: `The managed policy file ${env[POLICY_FILE_VARIABLE] || SYSTEM_POLICY_FILE}`,
        problem:
          '"registries" must be a list of { "url": "https://…", "servers"?: "name glob", "versions"?: "range" }',
      }),
    };
  return { allowed: parsed as AllowedRegistry[] };
}

export interface AllowedRegistry {
  readonly url: string;
  /** Server name glob (`io.example/*`); every name when absent. */
  readonly servers?: string;
  /** npm-style version range of the registry entry's version; every version when absent. */
  readonly versions?: string;
}

function allowedRegistryOf(value: unknown): AllowedRegistry | undefined {
  if (!isObject(value) || typeof value.url !== "string" || !/^https?:\/\//.test(value.url)) return undefined;
  if (value.servers !== undefined && typeof value.servers !== "string") return undefined;
  if (value.versions !== undefined && typeof value.versions !== "string") return undefined;
  return {
    url: value.url.replace(/\/+$/, ""),
    ...(value.servers !== undefined ? { servers: value.servers as string } : {}),
    ...(value.versions !== undefined ? { versions: value.versions as string } : {}),
  };
}

function readNoFollow(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    if (!fstatSync(fd).isFile()) throw notAFile();
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Why someone other than root or this user could change `file` (itself or a folder above it). */
export function ownershipProblem(file: string): string | undefined {
  const uid = process.getuid?.();
  const stat = lstatSync(file);
  if (!stat.isFile()) return "it is not a regular file";
  const own = ownerProblem(stat, uid, file);
  if (own !== undefined) return own;
  if ((stat.mode & 0o022) !== 0) return `its mode ${(stat.mode & 0o777).toString(8)} lets others change it`;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const folder = lstatSync(dir);
    const problem = ownerProblem(folder, uid, dir);
    if (problem !== undefined) return problem;
    const sticky = (folder.mode & 0o1000) !== 0;
    if ((folder.mode & 0o022) !== 0 && !sticky)
      return `its folder ${dir} (mode ${(folder.mode & 0o777).toString(8)}) lets others replace it`;
    if (dirname(dir) === dir) return undefined;
  }
}

function ownerProblem(stat: Stats, uid: number | undefined, path: string): string | undefined {
  if (uid === undefined || stat.uid === 0 || stat.uid === uid) return undefined;
  return `${path} is owned by uid ${stat.uid}, neither root nor this user`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
