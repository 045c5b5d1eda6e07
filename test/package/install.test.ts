import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The README installs from the Git URL (the package is not on the registry): npm then runs `prepare`
 * in a checkout without dist/, which must build it; an install of an already built package must not.
 */

const root = process.cwd();
const prepare = join(root, "scripts", "prepare.mjs");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("installing from the repository", () => {
  it("package.json runs scripts/prepare.mjs as prepare; the README leads with the Git URL", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      scripts: Record<string, string>;
      repository: { url: string };
    };
    expect(pkg.scripts.prepare).toBe("node scripts/prepare.mjs");
    const install = readFileSync("README.md", "utf8").split("## Install")[1] ?? "";
    const first = /```sh\n(.*)\n/.exec(install)?.[1];
    expect(first).toBe(`npm install -g ${pkg.repository.url}`);
    expect(install).not.toContain("npm install -g mcp-bridge\n");
  });

  it("prepare builds dist/ in a checkout that has none (a Git URL install), with tsconfig.build.json", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-prepare-"));
    dirs.push(dir);
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "index.ts"), "export const built: string = 'yes';\n");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", type: "module" }));
    writeFileSync(
      join(dir, "tsconfig.build.json"),
      JSON.stringify({
        compilerOptions: { outDir: "dist", rootDir: ".", module: "nodenext", target: "es2022", types: [] },
        include: ["src"],
      }),
    );
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    const run = spawnSync(process.execPath, [prepare], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("building dist/");
    expect(existsSync(join(dir, "dist", "src", "index.js"))).toBe(true);
  }, 130_000);

  it("prepare does nothing where dist/ is built (a packed tarball, a clone built before)", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-prepare-"));
    dirs.push(dir);
    mkdirSync(join(dir, "dist", "src"), { recursive: true });
    writeFileSync(join(dir, "dist", "src", "index.js"), "export {};\n");
    const run = spawnSync(process.execPath, [prepare], { cwd: dir, encoding: "utf8", timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
  });
});
