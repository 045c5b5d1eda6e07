import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dnsAnswers, dnsQuestion } from "../../../src/transport/sandbox/learn-dns.js";
import { proposeGrant, sandboxBlock } from "../../../src/transport/sandbox/learn-propose.js";
import { decodeCString, parseStraceLine, parseTrace } from "../../../src/transport/sandbox/learn-strace.js";
import type { SandboxPlan } from "../../../src/transport/sandbox/sandbox-plan.js";

/** A string as `strace -xx` prints it: every byte `\xNN`. */
const hexAll = (text: string) =>
  [...Buffer.from(text, "utf8")].map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("");

/** A string as strace prints it without -x: printable ASCII as is, `"` and `\` escaped, the rest octal or named. */
function cEscaped(text: string): string {
  const named: Record<number, string> = { 9: "\\t", 10: "\\n", 13: "\\r", 11: "\\v", 12: "\\f" };
  return [...Buffer.from(text, "utf8")]
    .map((byte) => {
      if (byte === 0x22) return '\\"';
      if (byte === 0x5c) return "\\\\";
      if (named[byte]) return named[byte];
      if (byte >= 0x20 && byte < 0x7f) return String.fromCharCode(byte);
      return `\\${byte.toString(8).padStart(3, "0")}`;
    })
    .join("");
}

describe("the strace parser", () => {
  it("reads opens by their flags, only when they succeeded", () => {
    const path = "/srv/data/in.txt";
    expect(parseStraceLine(`12 openat(AT_FDCWD, "${hexAll(path)}", O_RDONLY|O_CLOEXEC) = 3`)).toEqual([
      { kind: "read", path },
    ]);
    expect(
      parseStraceLine(`12 openat(AT_FDCWD, "${path}", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 4`),
    ).toEqual([{ kind: "write", path }]);
    expect(
      parseStraceLine(`12 openat(AT_FDCWD, "${path}", O_RDONLY) = -1 ENOENT (No such file or directory)`),
    ).toEqual([]);
    // Relative to a descriptor whose folder the trace does not name: not guessed.
    expect(parseStraceLine(`12 openat(7, "x.txt", O_RDONLY) = 3`)).toEqual([]);
    expect(parseStraceLine(`12 chdir("/srv") = 0`)).toEqual([{ kind: "chdir", path: "/srv" }]);
    expect(parseStraceLine(`12 rename("/a/b", "/a/c") = 0`)).toEqual([
      { kind: "write", path: "/a/b" },
      { kind: "write", path: "/a/c" },
    ]);
  });

  it("reads connects (inet, inet6, unix files; not abstract sockets)", () => {
    const inet = `9 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("${hexAll("93.184.215.14")}")}, 16) = 0`;
    expect(parseStraceLine(inet)).toEqual([{ kind: "connect", address: "93.184.215.14", port: 443 }]);
    // Non-blocking: under way, so reached; refused: not.
    const started = inet.replace("= 0", "= -1 EINPROGRESS (Operation now in progress)");
    expect(parseStraceLine(started)).toEqual([{ kind: "connect", address: "93.184.215.14", port: 443 }]);
    expect(parseStraceLine(inet.replace("= 0", "= -1 ECONNREFUSED (Connection refused)"))).toEqual([]);
    const inet6 = `9 connect(3, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0`;
    expect(parseStraceLine(inet6)).toEqual([{ kind: "connect", address: "::1", port: 80 }]);
    expect(parseStraceLine(`9 connect(3, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0`)).toEqual([
      { kind: "unix", path: "/run/x.sock" },
    ]);
    expect(parseStraceLine(`9 connect(3, {sa_family=AF_UNIX, sun_path=@"/tmp/.X11"}, 20) = 0`)).toEqual([]);
  });

  it("joins a call strace split in two by pid", () => {
    const trace = [
      `5 openat(AT_FDCWD, "/srv/a", O_RDONLY <unfinished ...>`,
      `6 openat(AT_FDCWD, "/srv/b", O_RDONLY) = 4`,
      `5 <... openat resumed>) = 3`,
    ].join("\n");
    expect(parseTrace(trace)).toEqual([
      { kind: "read", path: "/srv/b" },
      { kind: "read", path: "/srv/a" },
    ]);
  });

  it("never throws on arbitrary lines, whole traces or string bodies (200 runs)", () => {
    const fragments = fc.constantFrom(
      "openat(",
      "AT_FDCWD, ",
      '"',
      "\\",
      "\\x",
      "\\x2f",
      "\\777",
      ") = ",
      "-1",
      "0",
      "<unfinished ...>",
      "<... openat resumed>",
      "connect(3, {sa_family=AF_INET, sin_port=htons(",
      'inet_addr("',
      "sun_path=@",
      "sendto(",
      "\n",
      " ",
      "5 ",
    );
    const line = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.array(fragments, { maxLength: 40 }).map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(line, (text) => {
        expect(() => parseStraceLine(text)).not.toThrow();
        expect(() => parseTrace(`${text}\n${text}`)).not.toThrow();
        expect(() => decodeCString(text)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });

  it("paths with quotes, backslashes, newlines and any Unicode round-trip, hex or C-escaped (200 runs)", () => {
    const path = fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }).map((tail) => `/data/${tail}`);
    fc.assert(
      fc.property(path, fc.boolean(), (original, hex) => {
        const body = hex ? hexAll(original) : cEscaped(original);
        const events = parseStraceLine(`42 openat(AT_FDCWD, "${body}", O_RDWR|O_CREAT, 0644) = 5`);
        expect(events).toEqual([{ kind: "write", path: original }]);
      }),
      { numRuns: 200 },
    );
  });
});

/** A DNS message: the header (answer flag, one question, `answers` records) and the question. */
function dnsMessage(name: string, answers: readonly number[][] = []): Uint8Array {
  const labels = name.split(".").flatMap((label) => [label.length, ...Buffer.from(label)]);
  const header = [0x12, 0x34, answers.length > 0 ? 0x81 : 0x01, 0x00, 0, 1, 0, answers.length, 0, 0, 0, 0];
  const question = [...labels, 0, 0, 1, 0, 1];
  const records = answers.flatMap((ip) => [0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...ip]);
  return Uint8Array.from([...header, ...question, ...records]);
}

describe("the DNS messages of a trace", () => {
  it("give the name asked and the addresses answered", () => {
    expect(dnsQuestion(dnsMessage("api.example.com"))).toBe("api.example.com");
    expect(dnsAnswers(dnsMessage("api.example.com", [[10, 0, 0, 7]]))).toEqual({
      name: "api.example.com",
      addresses: ["10.0.0.7"],
    });
    expect(dnsQuestion(Uint8Array.from([1, 2, 3]))).toBeUndefined();
  });

  it("never throw on arbitrary bytes (200 runs)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(() => dnsQuestion(bytes)).not.toThrow();
        expect(() => dnsAnswers(bytes)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});

describe("the proposed grant", () => {
  const plan = (mounts: SandboxPlan["mounts"]): SandboxPlan => ({
    mounts,
    network: true,
    env: {},
    cwd: "/work",
  });
  const system = [{ kind: "ro", path: "/usr", source: "/usr" }] as const;
  const broad = plan([
    ...system,
    { kind: "tmpfs", path: "/tmp" },
    { kind: "tmpfs", path: "/home/u" },
    { kind: "ro", path: "/srv", source: "/srv" },
    { kind: "rw", path: "/work", source: "/work" },
  ]);
  const narrow = plan([...system, { kind: "tmpfs", path: "/tmp" }, { kind: "tmpfs", path: "/home/u" }]);

  it("keeps what the configured sandbox does not show, never private or kernel paths", () => {
    const learned = proposeGrant(
      [
        { kind: "read", path: "/usr/lib/libc.so" },
        { kind: "read", path: "/srv/in.txt" },
        { kind: "read", path: "notes.txt" },
        { kind: "chdir", path: "/srv" },
        { kind: "read", path: "sub/data.txt" },
        { kind: "chdir", path: "/work" },
        { kind: "write", path: "/work/out.txt" },
        { kind: "write", path: "/tmp/scratch" },
        { kind: "read", path: "/home/u/.npmrc" },
        { kind: "read", path: "/proc/self/maps" },
        { kind: "connect", address: "10.0.0.7", port: 443 },
        { kind: "connect", address: "127.0.0.53", port: 53 },
        { kind: "connect", address: "192.0.2.1", port: 80 },
        { kind: "sent", bytes: dnsMessage("api.example.com") },
        { kind: "received", bytes: dnsMessage("api.example.com", [[10, 0, 0, 7]]) },
      ],
      broad,
      narrow,
    );
    expect(learned).toEqual({
      read: ["/srv/in.txt", "/srv/sub/data.txt", "/work/notes.txt"],
      write: ["/work/out.txt"],
      hosts: ["api.example.com", "192.0.2.1"],
    });
    expect(sandboxBlock({ read: ["/opt/x"], write: [], network: false, env: ["TOKEN"] }, learned)).toEqual({
      read: ["/opt/x", "/srv/in.txt", "/srv/sub/data.txt", "/work/notes.txt"],
      write: ["/work/out.txt"],
      network: ["api.example.com", "192.0.2.1"],
      env: ["TOKEN"],
    });
  });
});
