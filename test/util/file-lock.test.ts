import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { McpBridgeError } from "../../src/errors/index.js";
import { withFileLock } from "../../src/util/file-lock.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const built = resolve("dist/src/util/file-lock.js");

/**
 * A child that increments the counter in `file` `rounds` times, each a read, a pause and a write under
 * the lock: without mutual exclusion increments are lost.
 */
const incrementer = `
const { withFileLock } = await import(${JSON.stringify(built)});
const { readFileSync, writeFileSync } = await import("node:fs");
const [file, rounds] = process.argv.slice(1);
for (let i = 0; i < Number(rounds); i++) {
  await withFileLock(file, async () => {
    const value = Number(readFileSync(file, "utf8"));
    await new Promise((r) => setImmediate(r));
    writeFileSync(file, String(value + 1));
  }, { timeoutMs: 60_000 });
}
`;

function runChild(args: string[]): Promise<number | null> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", incrementer, ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 80_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
}

/** A child that approves one project file in the trust store: a read-modify-write under withFileLockSync. */
const approver = `
const { TrustStore } = await import(${JSON.stringify(resolve("dist/src/config/trust.js"))});
const [file, project] = process.argv.slice(1);
new TrustStore(file).approve([{ file: project, name: "s", definition: { command: "node" } }]);
`;

function runScript(script: string, args: string[]): Promise<number | null> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 80_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
}

describe("withFileLockSync", () => {
  it("TrustStore.approve from 10 processes at once keeps every approval", async () => {
    const store = join(dir, "trust", "trusted-projects.json");
    const projects = Array.from({ length: 10 }, (_, i) => `/projects/p${i}/mcp.json`);
    const codes = await Promise.all(projects.map((project) => runScript(approver, [store, project])));
    expect(codes).toEqual(Array(10).fill(0));
    const approvals = (JSON.parse(readFileSync(store, "utf8")) as { approvals: object }).approvals;
    expect(Object.keys(approvals).sort()).toEqual([...projects].sort());
    expect(readdirSync(join(dir, "trust"))).toEqual(["trusted-projects.json"]);
  }, 90_000);

  it("times out with LOCK_TIMEOUT while another holder keeps the lock", async () => {
    const { withFileLockSync } = await import("../../src/util/file-lock.js");
    const file = join(dir, "sync-held");
    let release: () => void = () => {};
    const held = withFileLock(file, () => new Promise<void>((done) => (release = done)));
    await new Promise((r) => setTimeout(r, 50));
    expect(() => withFileLockSync(file, () => "never", { timeoutMs: 200 })).toThrow(
      expect.objectContaining({ code: "LOCK_TIMEOUT" }),
    );
    release();
    await held;
    expect(withFileLockSync(file, () => "ran")).toBe("ran");
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("withFileLock", () => {
  it("keeps every increment of 16 concurrent processes (read-modify-write under the lock)", async () => {
    const counter = join(dir, "counter");
    writeFileSync(counter, "0");
    const codes = await Promise.all(Array.from({ length: 16 }, () => runChild([counter, "5"])));
    expect(codes).toEqual(Array(16).fill(0));
    expect(readFileSync(counter, "utf8")).toBe("80");
    // Every lock file, and every stale one moved aside, is gone.
    expect(readdirSync(dir).filter((name) => name.startsWith("counter."))).toEqual([]);
  }, 90_000);

  it("takes over a lock whose holder is gone, exactly once among many waiters", async () => {
    const counter = join(dir, "stale-counter");
    writeFileSync(counter, "0");
    // A lock left by a process that died: a pid that cannot be running.
    writeFileSync(
      `${counter}.lock`,
      JSON.stringify({ pid: 2 ** 22 + 7, host: (await import("node:os")).hostname(), token: "dead" }),
    );
    const codes = await Promise.all(Array.from({ length: 12 }, () => runChild([counter, "3"])));
    expect(codes).toEqual(Array(12).fill(0));
    expect(readFileSync(counter, "utf8")).toBe("36");
    expect(existsSync(`${counter}.lock`)).toBe(false);
  }, 90_000);

  it("takes over a lock not touched for staleMs (a holder on another host, an empty file)", async () => {
    const file = join(dir, "old");
    writeFileSync(`${file}.lock`, "");
    const past = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, past, past);
    await expect(withFileLock(file, async () => "ran", { timeoutMs: 2000, staleMs: 30_000 })).resolves.toBe(
      "ran",
    );
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("times out with LOCK_TIMEOUT naming the path while a live holder keeps it, and releases on throw", async () => {
    const file = join(dir, "held");
    let release: () => void = () => {};
    const held = withFileLock(file, () => new Promise<void>((done) => (release = done)));
    await new Promise((r) => setTimeout(r, 50));
    const error = await withFileLock(file, async () => "never", { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpBridgeError);
    expect((error as McpBridgeError).code).toBe("LOCK_TIMEOUT");
    expect((error as McpBridgeError).message).toContain(file);
    expect((error as McpBridgeError).message).toContain(`process ${process.pid}`);
    release();
    await held;
    expect(existsSync(`${file}.lock`)).toBe(false);
    await expect(
      withFileLock(file, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("creates the lock file 0600 and never follows a planted link at the lock name", async () => {
    const file = join(dir, "linked");
    const victim = join(dir, "victim");
    writeFileSync(victim, "keep");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(victim, `${file}.lock`);
    const past = new Date(Date.now() - 60_000);
    const { lutimesSync } = await import("node:fs");
    lutimesSync(`${file}.lock`, past, past);
    let mode = 0;
    await withFileLock(file, async () => {
      mode = statSync(`${file}.lock`).mode & 0o777;
    });
    expect(mode).toBe(0o600);
    expect(readFileSync(victim, "utf8")).toBe("keep");
  });
});
