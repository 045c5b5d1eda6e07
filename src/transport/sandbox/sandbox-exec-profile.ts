import type { SandboxPlan } from "./sandbox-plan.js";

/** A string literal of the sandbox profile language (SBPL, a Scheme dialect). */
function quoted(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The macOS `sandbox-exec` profile for a plan: everything denied, then reading the system, the
 * command's own folders and the read grants, writing the write grants and the temp folders, and the
 * network only when the plan allows it. macOS has no private mounts: `/tmp` and the per-user temp
 * folder are the host's (writable), and the home folder is simply not readable beyond the grants.
 * Generated and unit-tested on its text only; not run on a Mac by this project's tests.
 */
export function sandboxExecProfile(plan: SandboxPlan): string {
  const read = new Set<string>([
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library",
    "/private/etc",
    "/dev",
    "/opt/homebrew",
  ]);
  const write = new Set<string>(["/private/tmp", "/private/var/folders", "/dev/null", "/dev/tty"]);
  for (const mount of plan.mounts) {
    if (mount.kind === "ro") read.add(mount.path).add(mount.source);
    if (mount.kind === "rw") write.add(mount.path).add(mount.source);
  }
  const paths = (set: Set<string>) => [...set].sort().map((path) => `  (subpath ${quoted(path)})`);
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-fork)",
    "(allow process-exec)",
    "(allow signal (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm)",
    '(allow file-read-metadata (literal "/"))',
    "(allow file-read*",
    ...paths(read),
    ")",
    "(allow file-read* file-write*",
    ...paths(write),
    ")",
  ];
  if (plan.network) lines.push("(allow network*)");
  else lines.push("(allow network* (local unix-socket) (remote unix-socket))");
  return `${lines.join("\n")}\n`;
}
