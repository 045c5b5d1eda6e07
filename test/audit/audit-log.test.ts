import { spawn } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../../src/audit/audit-log.js";
import { verifyAuditFiles } from "../../src/audit/audit-verify.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-audit-");
preloadCliInProcess();

const SECRET = "s3cr3t-audit-value-7f2c91";

function lines(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

describe("the audit log of a bridge", () => {
  let bridge: Bridge;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = tempDir();
    file = join(dir, "logs", "audit.jsonl");
    bridge = await startBridge({
      servers: { files: stdioEntry("records-calls", { env: { API_TOKEN: "${API_TOKEN}" } }) },
      env: { PATH: process.env.PATH, API_TOKEN: SECRET },
      settings: {
        policy: { rules: [{ tool: "delete_file", action: "deny", reason: "no deleting" }] },
        audit: { file },
      },
    });
    await bridge.call("files/echo", { text: `token is ${SECRET}` });
    await bridge.call("files/delete_file", { path: "/x" });
    await bridge.call("files/read_file", { path: "/notes" }, { caller: "alice" });
  }, 30_000);
  afterAll(() => bridge?.close());

  it("records each decision and each call, 0600, with digests and no secret", () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const records = lines(file).map((line) => JSON.parse(line));
    expect(records.map((r) => `${r.kind} ${r.tool} ${r.decision ?? r.outcome}`)).toEqual([
      "decision echo allow",
      "call echo ok",
      "decision delete_file deny",
      "decision read_file allow",
      "call read_file ok",
    ]);
    expect(records[2]).toMatchObject({
      code: "POLICY_DENIED",
      rule: { source: "config", index: 0, reason: "no deleting" },
    });
    expect(records[3].caller).toBe("alice");
    expect(records[0].args).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(records[1].result).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(records[1].durationMs).toBeGreaterThanOrEqual(0);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(readFileSync(file, "utf8")).not.toContain(SECRET);
    expect(verifyAuditFiles([file]).problems).toEqual([]);
  });

  it("logs arguments and results in full only when asked, with secrets masked", async () => {
    const fullFile = join(dir, "full.jsonl");
    const full = await startBridge({
      servers: { files: stdioEntry("records-calls", { env: { API_TOKEN: "${API_TOKEN}" } }) },
      env: { PATH: process.env.PATH, API_TOKEN: SECRET, OTHER_SECRET_KEY: "host-only-secret-99" },
      settings: { audit: { file: fullFile, full: true } },
    });
    try {
      await full.call("files/echo", { text: `token is ${SECRET} and host-only-secret-99` });
    } finally {
      await full.close();
    }
    const text = readFileSync(fullFile, "utf8");
    expect(text).toContain("token is ***");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("host-only-secret-99");
  });

  it("`audit verify` detects an edited field, a deleted line and two swapped lines, naming the line", async () => {
    const original = lines(file);
    const check = async (changed: string[]) => {
      const copy = join(dir, `tampered-${Math.random().toString(36).slice(2)}.jsonl`);
      writeFileSync(copy, `${changed.join("\n")}\n`);
      return runCliInProcess(["audit", "verify", copy], { cwd: dir, env: { PATH: process.env.PATH ?? "" } });
    };
    const intact = await check(original);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toContain("intact: 5 records");

    const edited = [...original];
    edited[1] = (edited[1] as string).replace('"outcome":"ok"', '"outcome":"isError"');
    const editRun = await check(edited);
    expect(editRun.code).toBe(1);
    expect(editRun.stdout).toMatch(/:2: it was edited/);

    const lastEdited = [...original];
    lastEdited[4] = (lastEdited[4] as string).replace('"caller":"alice"', '"caller":"bob"');
    expect((await check(lastEdited)).stdout).toMatch(/:5: it was edited/);

    const deleted = original.filter((_, index) => index !== 2);
    const deleteRun = await check(deleted);
    expect(deleteRun.code).toBe(1);
    expect(deleteRun.stdout).toMatch(/:3: the record before it is missing/);

    const firstDeleted = original.slice(1);
    expect((await check(firstDeleted)).stdout).toMatch(/:1: the records before it are missing/);

    const swapped = [original[0], original[2], original[1], original[3], original[4]] as string[];
    const swapRun = await check(swapped);
    expect(swapRun.code).toBe(1);
    expect(swapRun.stdout).toMatch(/:2: the record before it is missing, moved or changed/);
  });
});

describe("the audit log file", () => {
  it("rotates by size and keeps the chain across files", () => {
    const dir = tempDir();
    const file = join(dir, "audit.jsonl");
    const log = new AuditLog(file, 600);
    for (let i = 0; i < 20; i++) log.append({ kind: "call", tool: `t${i}`, outcome: "ok" });
    const names = readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .sort();
    expect(names.length).toBeGreaterThan(3);
    expect(names).toContain("audit.1.jsonl");
    const files = names.map((name) => join(dir, name));
    const report = verifyAuditFiles(files);
    expect(report).toEqual({ records: 20, startsAt: undefined, problems: [] });
    for (const name of names) expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(600);
    // The newest file alone verifies as a continuation, saying where it starts.
    expect(verifyAuditFiles([file]).problems).toEqual([]);
    expect(verifyAuditFiles([file]).startsAt).toBeGreaterThan(1);
    // A rotated file left out in the middle breaks the chain.
    const withoutOne = files.filter((path) => !path.endsWith("audit.1.jsonl"));
    expect(verifyAuditFiles(withoutOne).problems[0]?.problem).toMatch(/missing, moved or changed/);
  });

  it("never writes through a planted symbolic link", () => {
    const dir = tempDir();
    const target = join(dir, "victim.txt");
    writeFileSync(target, "keep me\n");
    const file = join(dir, "audit.jsonl");
    symlinkSync(target, file);
    expect(() => new AuditLog(file, 1_000_000).append({ kind: "call" })).toThrow(/AUDIT|audit log/);
    expect(readFileSync(target, "utf8")).toBe("keep me\n");
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it("keeps one chain when two processes append at once", async () => {
    const dir = tempDir();
    const file = join(dir, "audit.jsonl");
    // The built module (as the daemon and the CLI run it): `npm run build` first.
    const module = resolve("dist/src/audit/audit-log.js");
    const script = `import { AuditLog } from ${JSON.stringify(module)};
      const log = new AuditLog(${JSON.stringify(file)}, 100_000);
      for (let i = 0; i < 800; i++) log.append({ kind: "call", writer: process.argv.at(-1), i });`;
    const run = (name: string) =>
      new Promise<number | null>((done, fail) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script, name], {
          stdio: ["ignore", "ignore", "inherit"],
        });
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          fail(new Error("writer did not finish"));
        }, 80_000);
        child.on("close", (code) => {
          clearTimeout(timer);
          done(code);
        });
      });
    expect(await Promise.all([run("a"), run("b")])).toEqual([0, 0]);
    const files = readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(dir, name));
    expect(verifyAuditFiles(files)).toMatchObject({ records: 1600, problems: [] });
  }, 90_000);
});
