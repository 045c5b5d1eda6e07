/**
 * The narrowest grant that let a traced server work: from what it did (learn-strace.ts) under the
 * broad sandbox it was learned in, keep what its configured sandbox does not already show. A path the
 * server reached in a private folder (`/tmp`, its home: empty tmpfs in every sandbox) or in the
 * kernel's trees is never proposed; neither is one already visible with enough access (system
 * folders, its own program, the grants it has). Names it looked up, and addresses it connected to
 * that no lookup explains, are the hosts.
 */

import { posix } from "node:path";
import type { SandboxPolicy } from "../../config/model.js";
import { dnsAnswers, dnsQuestion } from "./learn-dns.js";
import type { TraceEvent } from "./learn-strace.js";
import { isKernelPath, isWithin, type SandboxMount, type SandboxPlan } from "./sandbox-plan.js";

export interface LearnedGrant {
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly hosts: readonly string[];
}

/** The mount a path is seen through: the last (topmost) one that holds it. */
function mountOf(plan: SandboxPlan, path: string): SandboxMount | undefined {
  let found: SandboxMount | undefined;
  for (const mount of plan.mounts) if (mount.kind !== "symlink" && isWithin(path, mount.path)) found = mount;
  return found;
}

/** Whether `path` still needs a grant of `kind` beyond what the configured sandbox shows. */
function needsGrant(
  path: string,
  kind: "read" | "write",
  learned: SandboxPlan,
  narrow: SandboxPlan,
): boolean {
  if (isKernelPath(path)) return false;
  const seen = mountOf(learned, path);
  if (seen === undefined || seen.kind === "tmpfs") return false;
  // In the configured sandbox, a path under a private tmpfs is another, empty folder: not the host's.
  const already = mountOf(narrow, path);
  if (already === undefined || already.kind === "tmpfs") return true;
  return already.kind === "ro" && kind === "write";
}

/** Paths not inside another of the list (a grant of a folder covers its files), sorted. */
function outermost(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((path) => !sorted.some((other) => other !== path && isWithin(path, other)));
}

function fileGrants(events: readonly TraceEvent[], learned: SandboxPlan, narrow: SandboxPlan) {
  const read = new Set<string>();
  const write = new Set<string>();
  // One working folder for the whole trace (strace -f does not say which process a chdir was in).
  let cwd = learned.cwd;
  for (const event of events) {
    if (event.kind === "chdir") cwd = posix.resolve(cwd, event.path);
    if (event.kind !== "read" && event.kind !== "write" && event.kind !== "unix") continue;
    const path = posix.resolve(cwd, event.path);
    const kind = event.kind === "read" ? "read" : "write";
    if (needsGrant(path, kind, learned, narrow)) (kind === "read" ? read : write).add(path);
  }
  const writes = outermost(write);
  const reads = outermost([...read].filter((path) => !writes.some((folder) => isWithin(path, folder))));
  return { read: reads, write: writes };
}

/** The DNS port: the resolver itself is reached by every lookup, it is no host of the server's. */
const DNS_PORT = 53;

function hostsOf(events: readonly TraceEvent[]): string[] {
  const names = new Set<string>();
  const named = new Set<string>();
  for (const event of events) {
    if (event.kind === "sent") {
      const name = dnsQuestion(event.bytes);
      if (name !== undefined) names.add(name);
    } else if (event.kind === "received") {
      for (const address of dnsAnswers(event.bytes)?.addresses ?? []) named.add(address);
    }
  }
  const addresses = new Set<string>();
  for (const event of events)
    if (event.kind === "connect" && event.port !== DNS_PORT && !named.has(event.address))
      addresses.add(event.address);
  return [...[...names].sort(), ...[...addresses].sort()];
}

/** What a trace asks for beyond `narrow`, the sandbox the server's entry gives it today. */
export function proposeGrant(
  events: readonly TraceEvent[],
  learned: SandboxPlan,
  narrow: SandboxPlan,
): LearnedGrant {
  return { ...fileGrants(events, learned, narrow), hosts: hostsOf(events) };
}

/**
 * The `sandbox` block to paste: the entry's own grants with the learned ones added, and the network
 * as a host list (false when the server reached none); an entry that already had the whole network
 * keeps it.
 */
export function sandboxBlock(
  configured: SandboxPolicy | undefined,
  learned: LearnedGrant,
): { read: string[]; write: string[]; network: boolean | string[]; env?: string[] } {
  const write = outermost([...(configured?.write ?? []), ...learned.write]);
  const read = outermost([...(configured?.read ?? []), ...learned.read]).filter(
    (path) => !write.some((folder) => isWithin(path, folder)),
  );
  const hosts = [...new Set([...(configured?.hosts ?? []), ...learned.hosts])];
  const network = configured?.network === true ? true : hosts.length > 0 ? hosts : false;
  const env = configured?.env ?? [];
  return { read, write, network, ...(env.length > 0 ? { env: [...env] } : {}) };
}
