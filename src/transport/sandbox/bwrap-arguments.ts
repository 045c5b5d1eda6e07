import type { SandboxPlan } from "./sandbox-plan.js";

/**
 * bubblewrap's command line for a plan. `--unshare-all` gives the server its own user, mount, pid,
 * IPC, UTS, cgroup and network namespaces (`--share-net` keeps the host's network when the plan
 * allows it); `--die-with-parent` ends it with bwrap, and the pid namespace ends every process it
 * started with it; `--new-session` keeps it off the host's terminal (no TIOCSTI keystroke injection).
 * The environment is not on this command line (other local users can read a process's argv): bwrap
 * is spawned with exactly the plan's environment, which it hands on unchanged.
 */
export function bwrapArguments(plan: SandboxPlan, command: string, args: readonly string[]): string[] {
  const out = ["--die-with-parent", "--new-session", "--unshare-all"];
  if (plan.network) out.push("--share-net");
  // Run by root, bwrap would leave the server every capability (CAP_SYS_ADMIN, CAP_DAC_OVERRIDE, ...)
  // inside; an unprivileged user's server has none anyway.
  out.push("--cap-drop", "ALL");
  out.push("--proc", "/proc", "--dev", "/dev");
  for (const mount of plan.mounts) {
    if (mount.kind === "tmpfs") out.push("--tmpfs", mount.path);
    else if (mount.kind === "symlink") out.push("--symlink", mount.target, mount.path);
    else out.push(mount.kind === "ro" ? "--ro-bind" : "--bind", mount.source, mount.path);
  }
  out.push("--chdir", plan.cwd, "--", command, ...args);
  return out;
}
