import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquirePidLock, releasePidLock } from "../../src/apps/daemon/lock.js";
import {
  daemonPaths,
  ensureRuntimeFolder,
  pathKey,
  unsafeFolderReason,
} from "../../src/apps/daemon/paths.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-bridge-daemon-unit-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("daemon paths", () => {
  it("one socket per absolute config path, in the runtime folder", () => {
    const env = { XDG_RUNTIME_DIR: dir };
    const a = daemonPaths("mcp.json", "/work/a", env);
    expect(a.config).toBe("/work/a/mcp.json");
    expect(dirname(a.socket)).toBe(join(dir, "mcp-bridge"));
    expect(daemonPaths("/work/a/mcp.json", "/elsewhere", env).socket).toBe(a.socket);
    expect(daemonPaths("mcp.json", "/work/b", env).socket).not.toBe(a.socket);
  });

  it("path keys are 16 hex digits, stable, and differ for near-identical paths", () => {
    expect(pathKey("/work/a/mcp.json")).toMatch(/^[0-9a-f]{16}$/);
    expect(pathKey("/work/a/mcp.json")).toBe(pathKey("/work/a/mcp.json"));
    const keys = new Set<string>();
    for (let i = 0; i < 20_000; i++) keys.add(pathKey(`/home/user/project-${i}/mcp.json`));
    keys.add(pathKey("/home/user/project-1/mcp.jsoN"));
    expect(keys.size).toBe(20_001);
  });

  it("creates the folder 0700 and refuses one others can enter, or a symlink", () => {
    const env = { XDG_RUNTIME_DIR: dir };
    expect(unsafeFolderReason(ensureRuntimeFolder(env))).toBeUndefined();
    const open = join(dir, "open");
    mkdirSync(open, { mode: 0o755 });
    expect(unsafeFolderReason(open)).toContain("only its owner");
    const link = join(dir, "link");
    symlinkSync(open, link);
    expect(unsafeFolderReason(link)).toContain("not a directory");
    // The runtime folder itself must pass the same check.
    chmodSync(join(dir, "mcp-bridge"), 0o711);
    expect(() => ensureRuntimeFolder(env)).toThrow(/Refusing the daemon folder/);
  });
});

describe("daemon pid lock", () => {
  it("one holder; a stale file (its process gone) is taken over", async () => {
    const file = join(dir, "d.pid");
    expect(acquirePidLock(file, 111_111_111)).toEqual({ acquired: true });
    // 111111111 is no process: the file is stale.
    expect(acquirePidLock(file)).toEqual({ acquired: true });
    expect(readFileSync(file, "utf8").trim()).toBe(String(process.pid));
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      await new Promise((r) => child.once("spawn", r));
      expect(acquirePidLock(file, child.pid)).toEqual({ acquired: false, pid: process.pid });
      releasePidLock(file);
      expect(acquirePidLock(file, child.pid)).toEqual({ acquired: true });
      // Only the holder releases it.
      releasePidLock(file);
      expect(readFileSync(file, "utf8").trim()).toBe(String(child.pid));
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("an empty pid file (a writer that died before writing) is stale", () => {
    const file = join(dir, "d.pid");
    writeFileSync(file, "");
    expect(acquirePidLock(file)).toEqual({ acquired: true });
  });
});

/** Value imports of a source file (type-only imports load nothing). */
function valueImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+"([^"]+)"/gm)].map(
    (m) => m[1] as string,
  );
}

describe("the CLI's daemon path", () => {
  it("loads neither the bridge, the connections nor the SDK before it knows there is no daemon", () => {
    const seen = new Set<string>();
    const external = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of valueImports(file)) {
        if (spec.startsWith(".")) walk(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
        else external.add(spec);
      }
    };
    walk(resolve("src/apps/cli/bin.ts"));
    const layers = new Set([...seen].map((file) => file.split(/[\\/]src[\\/]/)[1]?.split(/[\\/]/)[0]));
    for (const heavy of [
      "bridge",
      "connection",
      "transport",
      "auth",
      "agent",
      "adapters",
      "search",
      "registry",
    ])
      expect(layers).not.toContain(heavy);
    expect([...seen].map((f) => f.replace(/.*[\\/]src[\\/]/, ""))).not.toContain("apps/cli/run-cli.ts");
    expect([...external].filter((spec) => !spec.startsWith("node:"))).toEqual([]);
  });
});

describe("daemon client", () => {
  it("gives up on a daemon that accepted the request but sends nothing, with DAEMON_UNAVAILABLE", async () => {
    const { createServer } = await import("node:net");
    const { daemonRequest } = await import("../../src/apps/daemon/client.js");
    const socket = join(dir, "silent.sock");
    // Accepts connections and reads, never answers: a stopped or hung daemon.
    const silent = createServer((connection) => connection.resume());
    await new Promise<void>((done) => silent.listen(socket, done));
    try {
      await expect(daemonRequest(socket, "status", {}, { silenceMs: 300 })).rejects.toMatchObject({
        code: "DAEMON_UNAVAILABLE",
        message: expect.stringContaining("sent nothing"),
      });
    } finally {
      silent.close();
    }
  });
});
