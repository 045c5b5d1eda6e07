/**
 * Reads what `strace -f -qq -xx -s 512 -e trace=file,network` wrote about a server (see learn-run.ts)
 * into plain events: the files it opened for reading or writing, the addresses it connected to and
 * the byte buffers it sent or received (DNS questions and answers, see learn-dns.ts). The trace is
 * the server's own doing, so hostile input: a path may hold quotes, newlines or escapes, a line may
 * be cut or forged. Every line is parsed on its own, defensively; a line not understood is skipped,
 * never thrown on. Only calls that succeeded count: a denied or absent file was not needed.
 */

export type TraceEvent =
  | { readonly kind: "read" | "write"; readonly path: string }
  | { readonly kind: "connect"; readonly address: string; readonly port: number }
  | { readonly kind: "unix"; readonly path: string }
  /** The working folder changed: later relative paths are taken from it. */
  | { readonly kind: "chdir"; readonly path: string }
  | { readonly kind: "sent" | "received"; readonly bytes: Uint8Array };

/** Longest line looked at; strace's own lines are far shorter at `-s 512`. */
export const MAX_LINE = 64 * 1024;

const OPENS = new Set(["open", "openat", "openat2", "creat"]);
const WRITES = new Set([
  "mkdir",
  "mkdirat",
  "unlink",
  "unlinkat",
  "rmdir",
  "rename",
  "renameat",
  "renameat2",
  "link",
  "linkat",
  "symlink",
  "symlinkat",
  "truncate",
  "chmod",
  "fchmodat",
  "chown",
  "lchown",
  "fchownat",
  "utimensat",
  "mknod",
  "mknodat",
]);
const SENDS = new Set(["sendto", "sendmsg", "sendmmsg", "write"]);
const RECEIVES = new Set(["recvfrom", "recvmsg", "recvmmsg", "read"]);
const WRITE_FLAGS = /\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND)\b/;

/** One C string literal as strace prints it (`-xx`: every byte `\xNN`; also the usual escapes). */
export function decodeCString(body: string): Uint8Array {
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8 };
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char !== "\\") {
      bytes.push(...Buffer.from(char, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(body.slice(i + 1, i + 4));
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1, i + 4));
    if (hex) {
      bytes.push(Number.parseInt(hex[1] as string, 16));
      i += hex[0].length;
    } else if (octal) {
      bytes.push(Number.parseInt(octal[0], 8) & 0xff);
      i += octal[0].length;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0) & 0xff);
      i += 1;
    }
  }
  return Uint8Array.from(bytes);
}

/** The string literals of a line, in order (each as bytes); an unterminated one ends the list. */
export function quotedStrings(text: string): Uint8Array[] {
  const found: Uint8Array[] = [];
  const literal = /"((?:[^"\\]|\\.)*)"/g;
  for (let match = literal.exec(text); match !== null; match = literal.exec(text))
    found.push(decodeCString(match[1] as string));
  return found;
}

const asText = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8");

/** `PID name(args) = result`, the pid optional (no -f); the result split off the last ` = `. */
const CALL = /^(?:\[pid\s+)?(\d+)?\]?\s*([a-z0-9_]+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)(.*)$/s;

/** The events of one complete (not unfinished) strace line; [] for anything else. */
export function parseStraceLine(line: string): TraceEvent[] {
  if (line.length > MAX_LINE) return [];
  const call = CALL.exec(line.trim());
  if (!call) return [];
  const [, , name = "", args = "", result = "", rest = ""] = call;
  // A non-blocking connect (Node's, Python's asyncio) answers EINPROGRESS: an attempt to reach the host.
  const pending = name === "connect" && /^\s*EINPROGRESS\b/.test(rest);
  if (result === "?" || (result.startsWith("-") && !pending)) return [];
  const strings = quotedStrings(args);
  if (OPENS.has(name)) {
    const path = asText(strings[0]);
    if (path === undefined || !(path.startsWith("/") || fromCwd(args, name))) return [];
    const writes = name === "creat" || WRITE_FLAGS.test(args.slice(args.lastIndexOf('"')));
    return [{ kind: writes ? "write" : "read", path }];
  }
  if (name === "chdir") {
    const path = asText(strings[0]);
    return path === undefined ? [] : [{ kind: "chdir", path }];
  }
  if (name === "execve" || name === "execveat") {
    const path = asText(strings[0]);
    return path === undefined ? [] : [{ kind: "read", path }];
  }
  if (WRITES.has(name)) {
    // Two paths (rename, link, symlink): the first of symlink is the link's content, not a file.
    const paths = name.startsWith("symlink") ? strings.slice(1) : strings.slice(0, 2);
    return paths.map((bytes) => ({ kind: "write" as const, path: asText(bytes) as string }));
  }
  if (name === "connect" || name === "sendto") return connectEvents(name, args, strings);
  if (SENDS.has(name)) return strings.map((bytes) => ({ kind: "sent" as const, bytes }));
  if (RECEIVES.has(name)) return strings.map((bytes) => ({ kind: "received" as const, bytes }));
  return [];
}

/** A relative path is kept when it is relative to the working folder; `openat(3, "x")` names no folder we know. */
function fromCwd(args: string, name: string): boolean {
  return (name !== "openat" && name !== "openat2") || args.startsWith("AT_FDCWD");
}

function connectEvents(name: string, args: string, strings: Uint8Array[]): TraceEvent[] {
  const events: TraceEvent[] = [];
  if (name === "sendto")
    events.push(...strings.slice(0, 1).map((bytes) => ({ kind: "sent" as const, bytes })));
  const family = /sa_family=(AF_INET6?|AF_UNIX)/.exec(args)?.[1];
  if (family === "AF_UNIX") {
    const path = asText(/sun_path=@?"/.test(args) ? strings.at(-1) : undefined);
    // An abstract socket (`@name`) is no file: nothing to grant.
    if (path?.startsWith("/") && !/sun_path=@/.test(args)) events.push({ kind: "unix", path });
    return events;
  }
  const port = Number(/sin6?_port=htons\((\d+)\)/.exec(args)?.[1]);
  const address = family === undefined ? undefined : addressOf(args, family);
  if (address !== undefined && Number.isInteger(port)) events.push({ kind: "connect", address, port });
  return events;
}

function addressOf(args: string, family: string): string | undefined {
  const literal =
    family === "AF_INET"
      ? /inet_addr\("((?:[^"\\]|\\.)*)"\)/.exec(args)
      : /inet_pton\(AF_INET6,\s*"((?:[^"\\]|\\.)*)"/.exec(args);
  if (!literal) return undefined;
  const text = asText(decodeCString(literal[1] as string)) ?? "";
  return /^[0-9a-fA-F.:]+$/.test(text) ? text : undefined;
}

/**
 * Every event of a trace, in order. A call strace split in two (`<unfinished ...>`, then
 * `<... name resumed>`, when another process's call came between) is joined back by pid first.
 */
export function parseTrace(text: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  const pending = new Map<string, string>();
  for (const raw of text.split("\n")) {
    if (raw.length > MAX_LINE) continue;
    const pid = /^\s*(\d+)\s/.exec(raw)?.[1] ?? "";
    const unfinished = /^(.*)\s<unfinished \.\.\.>\s*$/s.exec(raw);
    if (unfinished) {
      if (pending.size < 10_000) pending.set(pid, unfinished[1] as string);
      continue;
    }
    const resumed = /^\s*\d*\s*<\.\.\. [a-z0-9_]+ resumed>\s?(.*)$/s.exec(raw);
    if (resumed) {
      const start = pending.get(pid);
      pending.delete(pid);
      if (start !== undefined) events.push(...parseStraceLine(`${start}${resumed[1]}`));
      continue;
    }
    events.push(...parseStraceLine(raw));
  }
  return events;
}
