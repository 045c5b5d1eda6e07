/**
 * Sandboxed stdio servers (`sandbox` in a server's entry): the sandbox cannot be set up, so the server
 * is not started at all, never started without it. Each message names the server, what failed and
 * the two ways out: make the sandbox work, or turn it off for that server.
 */
import { ErrorCode, ServerConnectionError } from "./error-classes.js";

/** `bwrap` (Linux) or `sandbox-exec` (macOS) is not on the host's PATH. */
export function sandboxProgramMissing(fields: {
  server: string;
  program: "bwrap" | "sandbox-exec";
}): ServerConnectionError {
  const { server, program } = fields;
  const install =
    program === "bwrap"
      ? "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)"
      : "sandbox-exec ships with macOS in /usr/bin; check PATH";
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}" is configured with "sandbox" but ${program} was not found on PATH, so it was not started. To run it sandboxed, ${install}; to run it without a sandbox, set "sandbox": false for this server.`,
    { server },
  );
}

/** bwrap is there but cannot create the sandbox; `detail` is bwrap's own first line of explanation. */
export function sandboxSetupFailed(fields: { server: string; detail: string }): ServerConnectionError {
  const { server, detail } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}": bubblewrap could not set up its sandbox (${detail}), so it was not started. Unprivileged user namespaces are probably disabled: allow them (sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0; on Ubuntu 24.04+ an AppArmor profile for bwrap, or kernel.apparmor_restrict_unprivileged_userns=0; in a container, run it with user namespaces allowed), or set "sandbox": false for this server.`,
    { server },
  );
}

/** The host's operating system has no sandbox mcp-bridge can set up (Windows). */
export function sandboxUnsupported(fields: { server: string; platform: string }): ServerConnectionError {
  const { server, platform } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}" is configured with "sandbox", which is not supported on ${platform} (only Linux with bubblewrap, and macOS with sandbox-exec), so it was not started. Set "sandbox": false to run it without a sandbox, or run the host on Linux or in WSL.`,
    { server },
  );
}

/**
 * The sentence a start failure of a sandboxed server adds when its stderr shows what the sandbox
 * withheld (transport/sandbox/withheld.ts), with the grant that would allow it. `path` and `host`
 * come from the server's stderr, already redacted.
 */
export function sandboxWithheldHint(
  withheld:
    | { kind: "network"; host: string | undefined; listed: boolean }
    | { kind: "runner"; runner: string }
    | { kind: "read" | "write"; path: string; errno: string },
): string {
  switch (withheld.kind) {
    case "network":
      if (withheld.listed)
        return ` Its sandbox reaches only the hosts in its "network" list, through a proxy (HTTPS_PROXY), and it failed to reach ${withheld.host ?? "the network"}: add that host to the list, and make sure the server uses HTTPS_PROXY.`;
      return ` Its sandbox has no network, and it failed to reach ${withheld.host ?? "the network"}: if it needs the network, set "network": true in its "sandbox".`;
    case "runner":
      return ` ${withheld.runner} downloads the package at start, and its sandbox has no network: set "network": true in its "sandbox", or install the package and run it with node or python directly.`;
    case "read":
      return ` Its sandbox does not show ${withheld.path} (${withheld.errno}): if the server needs it, add it or its folder to "read" in its "sandbox".`;
    case "write":
      return ` Its sandbox shows ${withheld.path} read-only (${withheld.errno}): if the server must write there, add its folder to "write" in its "sandbox".`;
  }
}

/** A host list in `network` on a platform where mcp-bridge cannot route the sandbox through its proxy. */
export function sandboxHostsUnsupported(fields: { server: string; platform: string }): ServerConnectionError {
  const { server, platform } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}" has a list of hosts in its sandbox's "network", which is enforced only on Linux (bubblewrap and mcp-bridge's proxy), not on ${platform}, so it was not started. Set "network": true or false for this server.`,
    { server },
  );
}

/** `limits` is set but the host has no rlimit program mcp-bridge can use (not Linux). */
export function limitsUnsupported(fields: { server: string; platform: string }): ServerConnectionError {
  const { server, platform } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}" is configured with "limits", which are enforced only on Linux (util-linux prlimit), not on ${platform}, so it was not started. Remove "limits" for this server to run it without them.`,
    { server },
  );
}

/** `limits` is set but util-linux `prlimit` is not on the host's PATH. */
export function limitsProgramMissing(fields: { server: string }): ServerConnectionError {
  const { server } = fields;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Server "${server}" is configured with "limits" but prlimit was not found on PATH, so it was not started. Install util-linux (Debian/Ubuntu: apt-get install util-linux), or remove "limits" for this server.`,
    { server },
  );
}

/** The sentence a failure adds when a resource limit stopped the server (transport/sandbox/resource-limits.ts). */
export function limitHitHint(fields: { kind: "memoryMb" | "pids" | "cpuSeconds"; value: number }): string {
  const { kind, value } = fields;
  const what = {
    memoryMb: `its memory limit ("limits.memoryMb": ${value}, heap and private memory)`,
    pids: `its process limit ("limits.pids": ${value}, processes and threads)`,
    cpuSeconds: `its CPU time limit ("limits.cpuSeconds": ${value})`,
  }[kind];
  return ` It was stopped by ${what}: raise "limits.${kind}" if the server needs more.`;
}

/** `mcp-bridge sandbox learn` cannot trace a server here: no strace, or not Linux. */
export function learnUnavailable(fields: {
  server: string;
  reason: "strace" | "platform";
  platform?: string;
}): ServerConnectionError {
  const { server, reason, platform } = fields;
  const why =
    reason === "strace"
      ? "strace was not found on PATH. Install it (Debian/Ubuntu: apt-get install strace; Fedora: dnf install strace; Arch: pacman -S strace) and run it again"
      : `it traces the server with strace inside bubblewrap, which needs Linux (this is ${platform}). Write the server's "sandbox" grants by hand (see docs/security.md)`;
  return new ServerConnectionError(
    ErrorCode.ServerStartFailed,
    `Cannot learn the sandbox of server "${server}": ${why}.`,
    { server },
  );
}

/** `sandbox learn` was given a server it cannot run: absent, remote or in-process. */
export function learnNotStdio(fields: { server: string; known: readonly string[] }): ServerConnectionError {
  const { server, known } = fields;
  const list =
    known.length > 0
      ? `the configured stdio servers are ${known.join(", ")}`
      : "no stdio server is configured";
  return new ServerConnectionError(
    ErrorCode.ServerNotFound,
    `Cannot learn the sandbox of server "${server}": it is not a configured stdio server (${list}). Only a local command can be sandboxed; name one of those.`,
    { server },
  );
}
