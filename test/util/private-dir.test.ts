import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { privateDirProblem } from "../../src/util/cache-dir.js";

const root = mkdtempSync(join(tmpdir(), "mcp-bridge-private-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o7777;

describe.skipIf(process.platform === "win32")("privateDirProblem", () => {
  it("creates the missing folders 0700 and accepts them", () => {
    const dir = join(root, "a", "b", "notes");
    expect(privateDirProblem(dir)).toBeUndefined();
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(root, "a"))).toBe(0o700);
  });

  it("accepts an existing folder of ours that others can read but not write", () => {
    const dir = join(root, "readable");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect(privateDirProblem(dir)).toBeUndefined();
  });

  it("refuses a folder others can write to, and leaves its mode alone", () => {
    const dir = join(root, "open");
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect(privateDirProblem(dir)).toContain("writable by other users");
    expect(mode(dir)).toBe(0o777);
  });

  it("refuses a symbolic link, even to a private folder", () => {
    const target = join(root, "target");
    mkdirSync(target, { mode: 0o700 });
    const link = join(root, "link");
    symlinkSync(target, link);
    expect(privateDirProblem(link)).toContain("symbolic link");
  });

  it("refuses a folder inside a folder others can write to that is not sticky, but not inside a sticky one", () => {
    const open = join(root, "shared-open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(privateDirProblem(join(open, "notes"))).toContain(`${open} is writable by other users`);
    const sticky = join(root, "shared-sticky");
    mkdirSync(sticky);
    chmodSync(sticky, 0o1777);
    expect(privateDirProblem(join(sticky, "notes"))).toBeUndefined();
  });
});
