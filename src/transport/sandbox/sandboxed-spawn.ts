/**
 * Runs a stdio server inside a sandbox by rewriting what is spawned (command, args, env, cwd): bwrap on
 * Linux, sandbox-exec on macOS, a refusal elsewhere. The rewritten spec is spawned as any server's, in
 * its own process group under the host's watchdog, so the die-with-the-host guarantees are unchanged
 * (bwrap adds its own `--die-with-parent`, whose parent is the host itself, and pid namespace). A sandbox that cannot be set up fails the start with an
 * error naming the server; the server is never started without it.
 */

import { homedir } from "node:os";
import type { ResourceLimits, SandboxPolicy } from "../../config/model.js";
import { sandboxHostsUnsupported, sandboxProgramMissing, sandboxUnsupported } from "../../errors/index.js";
import { SERVING_ENV } from "../../util/serving-marker.js";
import type { SpawnSpec } from "../spawn-server.js";
import { bwrapArguments } from "./bwrap-arguments.js";
import { forwarderArgs } from "./egress-forwarder.js";
import { startEgressProxy } from "./egress-proxy.js";
import { findCommand, hostFacts, isPackageRunner, resolvePath } from "./host-facts.js";
import { privateCacheEnv, privateCacheFolder } from "./package-cache.js";
import { findPrlimit, prlimitOptions } from "./resource-limits.js";
import { sandboxExecProfile } from "./sandbox-exec-profile.js";
import { installRoot, planSandbox, type ResolvedPath, type SandboxPlan } from "./sandbox-plan.js";

export interface SandboxInput {
  readonly server: string;
  readonly policy: SandboxPolicy;
  /** The server's own `env` from the config. */
  readonly configured: Readonly<Record<string, string>>;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  /** Resource limits, applied by `prlimit` inside the sandbox (see resource-limits.ts). */
  readonly limits?: ResourceLimits | undefined;
}

/** Host variables every sandboxed server gets (when set): what a program needs to find things and print text. */
export const SANDBOX_BASE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TZ"];

/**
 * The whole environment of a sandboxed server: the base set, the host variables the policy lists, the
 * variables that point a package runner into its private cache (`caches`), then the server's own
 * `env`; `TMPDIR` is the private `/tmp` (a host TMPDIR would name a folder the sandbox does not show).
 */
export function sandboxEnvironment(
  input: SandboxInput,
  home: string,
  caches: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...SANDBOX_BASE_ENV, SERVING_ENV, ...input.policy.env]) {
    const value = input.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...caches, HOME: home, TMPDIR: "/tmp", ...input.configured };
}

/**
 * A tracer run inside the sandbox in front of the server (`sandbox learn`, see learn-run.ts): its
 * program and options, and the host folder it writes into, shown writable at the same path.
 */
export interface SandboxTracer {
  readonly command: readonly [string, ...string[]];
  readonly folder: string;
}

/** What the sandbox of `spec` under `input.policy` shows, and the program that makes it (bwrap, sandbox-exec). */
export function sandboxPlanOf(
  spec: SpawnSpec,
  input: SandboxInput,
): { readonly plan: SandboxPlan; readonly program: string } {
  const platform = input.platform ?? process.platform;
  const { server } = input;
  if (platform !== "linux" && platform !== "darwin") throw sandboxUnsupported({ server, platform });
  const hosts = input.policy.hosts ?? [];
  if (platform === "darwin" && hosts.length > 0) throw sandboxHostsUnsupported({ server, platform });
  const program = platform === "linux" ? "bwrap" : "sandbox-exec";
  const found = findCommand(program, input.hostEnv.PATH, "/");
  if (found === undefined) throw sandboxProgramMissing({ server, program });
  const home = input.hostEnv.HOME || homedir();
  const cache = isPackageRunner(spec.command)
    ? privateCacheFolder(server, { ...input.hostEnv, HOME: home })
    : undefined;
  const env = sandboxEnvironment(input, home, cache === undefined ? {} : privateCacheEnv(cache));
  const facts = hostFacts({
    cache,
    policy: input.policy,
    command: spec.command,
    args: spec.args,
    env,
    cwd: spec.cwd,
    hostCwd: process.cwd(),
    home,
  });
  // The forwarder of a host list runs on the host's own node, which the sandbox must then show.
  const runtime = hosts.length === 0 ? facts.runtime : [...facts.runtime, ...nodeRuntime(home)];
  return { plan: planSandbox(input.policy, { ...facts, runtime }, env), program: found };
}

/**
 * The spec that runs `spec` sandboxed under `input.policy`; rejects (never falls back to `spec`) when
 * the platform has no sandbox, the sandbox program is missing or cannot create a sandbox.
 */
export async function sandboxedSpec(
  spec: SpawnSpec,
  input: SandboxInput,
  tracer?: SandboxTracer,
): Promise<SpawnSpec> {
  const platform = input.platform ?? process.platform;
  const hosts = input.policy.hosts ?? [];
  const prlimit = input.limits ? findPrlimit(input.server, input.hostEnv.PATH, platform) : undefined;
  const { plan: planned, program: found } = sandboxPlanOf(spec, input);
  if (platform === "darwin") {
    const args = ["-p", sandboxExecProfile(planned), spec.command, ...spec.args];
    return { command: found, args, env: planned.env, cwd: planned.cwd };
  }
  const plan = tracer
    ? {
        ...planned,
        mounts: [...planned.mounts, { kind: "rw" as const, path: tracer.folder, source: tracer.folder }],
      }
    : planned;
  // No trial run of bwrap first (a whole sandbox, tens of ms per start): when it cannot set one up it
  // says so on stderr and exits, and the start failure names it (failures.ts, bwrapComplaint).
  // prlimit runs inside, after bwrap made the user namespace its RLIMIT_NPROC is then counted in;
  // a tracer runs outermost inside, so it sees the server from its first system call.
  const [limited, limitedArgs] =
    prlimit && input.limits
      ? [prlimit, [...prlimitOptions(input.limits), "--", spec.command, ...spec.args]]
      : [spec.command, spec.args];
  const [command, args] = tracer
    ? [tracer.command[0], [...tracer.command.slice(1), limited, ...limitedArgs]]
    : [limited, limitedArgs];
  if (hosts.length === 0)
    return { command: found, args: bwrapArguments(plan, command, args), env: plan.env, cwd: "/" };
  return withEgressProxy(found, plan, hosts, [command, args]);
}

/** The host's node binary and its install folder, as the sandbox shows a program. */
function nodeRuntime(home: string): ResolvedPath[] {
  const node = resolvePath(process.execPath);
  return node.real === undefined ? [node] : [node, resolvePath(installRoot(node.real, home))];
}

/**
 * bwrap's spec for a server that may reach `hosts` only: a proxy on a Unix socket, shown inside at the
 * same path, and the forwarder in front of the server; the proxy closes when the process has ended.
 */
async function withEgressProxy(
  bwrap: string,
  plan: SandboxPlan,
  hosts: readonly string[],
  [command, args]: [string, readonly string[]],
): Promise<SpawnSpec> {
  const proxy = await startEgressProxy(hosts);
  const mounts = [...plan.mounts, { kind: "rw" as const, path: proxy.socket, source: proxy.socket }];
  const inside = forwarderArgs(proxy.socket, command, args);
  return {
    command: bwrap,
    args: bwrapArguments({ ...plan, mounts }, process.execPath, inside),
    env: plan.env,
    cwd: "/",
    release: () => proxy.close(),
  };
}
