import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeServers } from "../../../src/config/normalize.js";
import { bwrapArguments } from "../../../src/transport/sandbox/bwrap-arguments.js";
import { sandboxExecProfile } from "../../../src/transport/sandbox/sandbox-exec-profile.js";
import {
  type HostFacts,
  installRoot,
  isWithin,
  planSandbox,
} from "../../../src/transport/sandbox/sandbox-plan.js";
import { sandboxedSpec } from "../../../src/transport/sandbox/sandboxed-spawn.js";

const policy = { read: ["/data/in"], write: ["/data/out"], network: false, env: [] };
const facts: HostFacts = {
  system: [
    { path: "/usr", real: "/usr" },
    { path: "/bin", link: "usr/bin" },
  ],
  etc: [{ path: "/etc/hosts", real: "/etc/hosts" }],
  home: "/home/u",
  runtime: [
    { path: "/usr/bin/node", real: "/usr/bin/node" },
    { path: "/home/u/.nvm/v22", real: "/home/u/.nvm/v22" },
  ],
  caches: [],
  read: [
    { path: "/data/in", real: "/data/in" },
    { path: "/data/missing", real: undefined },
  ],
  write: [{ path: "/data/out", real: "/data/out" }],
  cwd: { path: "/home/u/projects/x", configured: false },
};

describe("sandbox plan", () => {
  it("mounts system folders, private /tmp and home, then the grants; skips what is missing", () => {
    const plan = planSandbox(policy, facts, { PATH: "/usr/bin" });
    expect(plan.mounts).toEqual([
      { kind: "ro", path: "/usr", source: "/usr" },
      { kind: "symlink", path: "/bin", target: "usr/bin" },
      { kind: "ro", path: "/etc/hosts", source: "/etc/hosts" },
      { kind: "tmpfs", path: "/tmp" },
      { kind: "tmpfs", path: "/home/u" },
      { kind: "ro", path: "/data/in", source: "/data/in" },
      { kind: "rw", path: "/data/out", source: "/data/out" },
      { kind: "ro", path: "/home/u/.nvm/v22", source: "/home/u/.nvm/v22" },
    ]);
    // The host's folder is not granted: the server starts in its private home instead.
    expect(plan.cwd).toBe("/home/u");
  });

  it("writable wins over read-only for the same path, and a deeper grant comes after a shallower one", () => {
    const plan = planSandbox(
      { ...policy, read: ["/a", "/a/b/c"], write: ["/a/b"] },
      {
        ...facts,
        runtime: [],
        read: [
          { path: "/a/b/c", real: "/a/b/c" },
          { path: "/a", real: "/a" },
          { path: "/a/b", real: "/a/b" },
        ],
        write: [{ path: "/a/b", real: "/a/b" }],
      },
      {},
    );
    const grants = plan.mounts.filter((mount) => mount.kind === "ro" || mount.kind === "rw").slice(2);
    expect(grants).toEqual([
      { kind: "ro", path: "/a", source: "/a" },
      { kind: "rw", path: "/a/b", source: "/a/b" },
      { kind: "ro", path: "/a/b/c", source: "/a/b/c" },
    ]);
  });

  it("never grants the home folder, a parent of it or / as a program's folder", () => {
    expect(installRoot("/home/u/server.py", "/home/u")).toBe("/home/u/server.py");
    expect(installRoot("/server.py", "/home/u")).toBe("/server.py");
    expect(installRoot("/home/u/.nvm/v22/bin/node", "/home/u")).toBe("/home/u/.nvm/v22");
    expect(installRoot("/p/node_modules/@s/x/dist/index.js", "/home/u")).toBe("/p/node_modules");
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "bin", "node_modules", "home", "u"), { maxLength: 6 }),
        (parts) => {
          const file = `/${[...parts, "f.js"].join("/")}`;
          const root = installRoot(file, "/home/u");
          expect(root === file || !isWithin("/home/u", root)).toBe(true);
          expect(isWithin(file, root)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("bwrap gets its own namespaces, dies with its parent, drops capabilities; network only when allowed", () => {
    const plan = planSandbox(policy, facts, {});
    const args = bwrapArguments(plan, "node", ["server.js"]);
    expect(args.slice(0, 5)).toEqual([
      "--die-with-parent",
      "--new-session",
      "--unshare-all",
      "--cap-drop",
      "ALL",
    ]);
    expect(args).not.toContain("--share-net");
    expect(args.slice(-5)).toEqual(["--chdir", "/home/u", "--", "node", "server.js"]);
    expect(bwrapArguments({ ...plan, network: true }, "node", [])).toContain("--share-net");
    // No environment value on the command line (other users can read a process's argv).
    expect(args).not.toContain("--setenv");
  });

  it("the macOS profile denies by default and allows the same grants", () => {
    const plan = planSandbox(
      policy,
      { ...facts, read: [{ path: '/data/we"ird', real: '/data/we"ird' }] },
      {},
    );
    const profile = sandboxExecProfile(plan);
    expect(profile.startsWith("(version 1)\n(deny default)\n")).toBe(true);
    expect(profile).toContain('(subpath "/data/we\\"ird")');
    expect(profile).toMatch(/\(allow file-read\* file-write\*\n(.*\n)*\s+\(subpath "\/data\/out"\)/);
    expect(profile).not.toContain("(allow network*)");
    expect(profile).not.toContain('"/home/u"');
    expect(sandboxExecProfile({ ...plan, network: true })).toContain("(allow network*)");
  });

  it("Windows refuses a sandboxed server by name", async () => {
    const spec = { command: "node", args: [], env: {} };
    await expect(
      sandboxedSpec(spec, { server: "boxed", policy, configured: {}, hostEnv: {}, platform: "win32" }),
    ).rejects.toMatchObject({
      code: "SERVER_START_FAILED",
      server: "boxed",
      message: expect.stringMatching(/not supported on win32/),
    });
  });
});

describe("sandbox config", () => {
  const load = (sandbox: unknown) =>
    normalizeServers([["s", { command: "node", sandbox }]], {
      env: { HOME: "/home/u", DATA: "/d" },
      homeDir: "/home/u",
      format: "object",
    });

  it("true is the strict default; a table adds grants; ~ and ${VAR} expand", () => {
    expect(load(true).servers[0]).toMatchObject({
      sandbox: { read: [], write: [], network: false, env: [] },
    });
    expect(load(false).servers[0]).not.toHaveProperty("sandbox");
    expect(
      load({ read: ["~/docs"], write: ["${DATA}/out"], network: true, env: ["API_URL"] }).servers[0],
    ).toMatchObject({
      sandbox: { read: ["/home/u/docs"], write: ["/d/out"], network: true, env: ["API_URL"] },
    });
  });

  it("a remote server with a sandbox is refused (nothing would apply it)", () => {
    const config = normalizeServers([["r", { url: "http://127.0.0.1:1/mcp", sandbox: true }]], {
      env: {},
      homeDir: "/home/u",
      format: "object",
    });
    expect(config.servers).toEqual([]);
    expect(config.warnings[0]?.message).toMatch(/"sandbox" applies only to stdio servers/);
  });

  it("a misspelled or malformed sandbox leaves the server out with a warning, never unsandboxed", () => {
    for (const bad of [{ reed: ["/x"] }, { network: "yes" }, { env: ["A=B"] }, "strict", { read: "/x" }]) {
      const config = load(bad);
      expect(config.servers).toEqual([]);
      expect(config.warnings[0]?.message).toMatch(/sandbox/);
    }
  });
});
