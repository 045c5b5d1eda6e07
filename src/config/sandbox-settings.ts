import { isAbsolute, resolve } from "node:path";
import { entryProblem } from "../errors/entry-problems.js";
import type { Raw } from "./fields.js";
import type { SandboxPolicy } from "./model.js";
import { EntryProblem } from "./problem.js";

/** The keys a `sandbox` table may hold; any other is refused, since a misspelled grant would be lost silently. */
const SANDBOX_KEYS = ["read", "write", "network", "env"] as const;

/** A host name, `*.` and a domain, or an IP address (v4, or v6 without brackets). */
const HOST_PATTERN = /^(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?$|^[0-9A-Fa-f:]+$/;

/** An environment variable name as POSIX shells write them (no `=`, no NUL, no glob). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads a stdio entry's `sandbox`: `true` (the strict default), `false`/absent (no sandbox), or a table
 * of grants added to the strict default. `text` expands `${VAR}` and `~` like every other string of
 * the entry; a relative path is taken from the config file's folder, as `cwd` is.
 */
export function normalizeSandbox(
  value: unknown,
  text: (field: string, value: unknown) => string,
  configDir: string | undefined,
): SandboxPolicy | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { read: [], write: [], network: false, env: [] };
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new EntryProblem("sandbox", entryProblem.sandboxNotTable());
  const raw = value as Raw;
  for (const key of Object.keys(raw)) {
    if (!(SANDBOX_KEYS as readonly string[]).includes(key))
      throw new EntryProblem(`sandbox.${key}`, entryProblem.sandboxUnknownKey(key, SANDBOX_KEYS));
  }
  const paths = (key: "read" | "write") => {
    const list = raw[key];
    if (list === undefined) return [];
    if (!Array.isArray(list)) throw new EntryProblem(`sandbox.${key}`, entryProblem.sandboxNotPaths(key));
    return list.map((item, index) => {
      const path = text(`sandbox.${key}[${index}]`, item);
      if (path.trim() === "")
        throw new EntryProblem(`sandbox.${key}[${index}]`, entryProblem.sandboxEmptyPath(key, index));
      return !isAbsolute(path) && configDir ? resolve(configDir, path) : resolve(path);
    });
  };
  const network = raw.network ?? false;
  const hosts = Array.isArray(network) ? network : [];
  if (typeof network !== "boolean" && !Array.isArray(network))
    throw new EntryProblem("sandbox.network", entryProblem.sandboxNetwork());
  hosts.forEach((host: unknown, index) => {
    if (typeof host !== "string" || !HOST_PATTERN.test(host))
      throw new EntryProblem(`sandbox.network[${index}]`, entryProblem.sandboxHost(index));
  });
  const env = raw.env ?? [];
  if (!Array.isArray(env) || !env.every((name) => typeof name === "string" && ENV_NAME.test(name)))
    throw new EntryProblem("sandbox.env", entryProblem.sandboxEnv());
  const grants = { read: paths("read"), write: paths("write"), env: env as string[] };
  if (hosts.length === 0) return { ...grants, network: network === true };
  return { ...grants, network: false, hosts: hosts as string[] };
}
