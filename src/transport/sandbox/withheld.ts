/**
 * What a sandbox withheld from a server that failed to start, read from the last lines it wrote to
 * stderr: the network (a name lookup or connection that failed: `npx` fetching a package), or a path
 * it could not read or write. Pure: the failure message (connection/failures.ts) says it and which
 * grant to add. Only what the server's own words show is claimed; nothing is guessed from silence,
 * except a package runner without network, which cannot start at all.
 */

import type { SandboxPolicy } from "../../config/model.js";
import { plainText } from "../../util/plain-text.js";
import { isPackageRunner } from "./host-facts.js";
import { isKernelPath, isWithin } from "./sandbox-plan.js";

export type Withheld =
  | { readonly kind: "network"; readonly host: string | undefined; readonly listed: boolean }
  | { readonly kind: "runner"; readonly runner: string }
  | { readonly kind: "read" | "write"; readonly path: string; readonly errno: string };

/** A failed name lookup or an unreachable network (Node, npm, Python, Go, curl wordings). */
const NETWORK =
  /\b(?:ENOTFOUND|EAI_AGAIN|ENETUNREACH)\b|Temporary failure in name resolution|Name or service not known|Network is unreachable|Could not resolve host|no such host|nodename nor servname/i;
/** The host of a failed lookup: `getaddrinfo EAI_AGAIN registry.npmjs.org`, `lookup x on ...`. */
const LOOKUP_HOST =
  /(?:getaddrinfo\s+(?:ENOTFOUND|EAI_AGAIN)|Could not resolve host:?|lookup)\s+([A-Za-z0-9.-]+\.[A-Za-z]{2,})/i;

/** `[code, path]` of a failed file access, by the words of Node (`ENOENT: ..., open '/x'`), Python and Node's loader. */
const PATH_FAILURES: readonly {
  readonly pattern: RegExp;
  readonly errno: (match: RegExpExecArray) => string;
}[] = [
  {
    pattern: /\b(ENOENT|EACCES|EPERM|EROFS)\b[^'"\n]*?['"](\/[^'"\n]+)['"]/,
    errno: (match) => match[1] as string,
  },
  {
    pattern: /\[Errno (2|13|30)\][^'"\n]*['"](\/[^'"\n]+)['"]/,
    errno: (match) => ({ "2": "ENOENT", "13": "EACCES", "30": "EROFS" })[match[1] as "2"] ?? "ENOENT",
  },
  { pattern: /Cannot find (?:module|package) ['"](\/[^'"\n]+)['"]/, errno: () => "ENOENT" },
];

function pathFailure(line: string): { path: string; errno: string } | undefined {
  for (const { pattern, errno } of PATH_FAILURES) {
    const match = pattern.exec(line);
    if (match) return { path: match[match.length - 1] as string, errno: errno(match) };
  }
  return undefined;
}

function granted(path: string, grants: readonly string[]): boolean {
  return grants.some((grant) => isWithin(path, grant));
}

/**
 * What the sandbox withheld, judged from the server's last stderr lines (the latest line that says so
 * wins), or, for a package runner without network that said nothing, the network; undefined when
 * nothing shows the sandbox was the cause.
 */
export function sandboxWithheld(
  stderr: readonly string[],
  policy: SandboxPolicy,
  command: string | undefined,
): Withheld | undefined {
  for (let index = stderr.length - 1; index >= 0; index--) {
    const line = stderr[index] as string;
    if (!policy.network && NETWORK.test(line))
      return { kind: "network", host: LOOKUP_HOST.exec(line)?.[1], listed: (policy.hosts ?? []).length > 0 };
    const failure = pathFailure(line);
    if (failure === undefined || isKernelPath(failure.path)) continue;
    const write = failure.errno === "EROFS";
    // A path inside a grant of the right kind was shown: its failure is not the sandbox's doing.
    if (granted(failure.path, write ? policy.write : [...policy.read, ...policy.write])) continue;
    return { kind: write ? "write" : "read", ...failure };
  }
  if (!policy.network && command !== undefined && isPackageRunner(command))
    return { kind: "runner", runner: command.split(/[\\/]/).pop() ?? command };
  return undefined;
}

/**
 * bwrap's own complaint when it could not set up the sandbox (user namespaces disabled, a mount it
 * could not make): its lines start with "bwrap: ", and it writes nothing else before the server runs.
 * Cut to one short line (it is quoted in an error message); undefined when there is none.
 */
export function bwrapComplaint(stderr: readonly string[]): string | undefined {
  const line = stderr.find((item) => item.startsWith("bwrap: "));
  return line === undefined ? undefined : plainText(line.slice("bwrap: ".length), 300);
}
