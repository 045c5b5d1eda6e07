import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Issue 25, "first run": the command must exist in a checkout that was never built (else `npx
 * mcp-bridge` silently installs and builds the package), and installing the package must run no script.
 */
const root = resolve(".");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
  version: string;
  repository?: { url?: string };
  homepage?: string;
  bugs?: { url?: string };
  keywords?: string[];
};
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("first run", () => {
  it("installing the package runs no script; packing and testing build it", () => {
    for (const hook of ["preinstall", "install", "postinstall"]) {
      expect(pkg.scripts[hook], hook).toBeUndefined();
    }
    // npm runs `prepare` only in a clone and for a Git URL install, never for a packed or published
    // package; it builds dist/ only where it is missing (test/package/install.test.ts).
    expect(pkg.scripts.prepare).toBe("node scripts/prepare.mjs");
    expect(pkg.scripts.prepack).toContain("npm run build");
    // `npm test` builds dist/ with the type check itself: one tsc run over tsconfig.json, which emits.
    expect(pkg.scripts.test).toContain("tsc -p tsconfig.json");
    const tsconfig = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.compilerOptions.outDir).toBe("dist");
    expect(tsconfig.compilerOptions.noEmit).toBeUndefined();
  });

  it("the command is a file outside dist/ that ships with the package", () => {
    const bin = pkg.bin["mcp-bridge"] ?? "";
    expect(bin.startsWith("dist/")).toBe(false);
    expect(existsSync(join(root, bin))).toBe(true);
    expect(pkg.files.some((entry) => bin.startsWith(`${entry}/`))).toBe(true);
  });

  it("without dist/, the command says at once to run npm run build and exits 1", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-unbuilt-"));
    temps.push(dir);
    const bin = pkg.bin["mcp-bridge"] ?? "";
    mkdirSync(join(dir, bin, ".."), { recursive: true });
    copyFileSync(join(root, bin), join(dir, bin));
    const run = spawnSync(process.execPath, [join(dir, bin), "status"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("npm run build");
    expect(run.stderr).toContain(dir);
  });

  it("with dist/ built, the command runs the CLI", () => {
    const run = spawnSync(process.execPath, [join(root, pkg.bin["mcp-bridge"] ?? ""), "--version"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(pkg.version);
  });

  it("package.json says where the project lives", () => {
    expect(pkg.repository?.url).toBe("git+https://github.com/mcp-bridge/mcp-bridge.git");
    expect(pkg.homepage).toMatch(/^https:\/\/github\.com\/mcp-bridge\/mcp-bridge/);
    expect(pkg.bugs?.url).toBe("https://github.com/mcp-bridge/mcp-bridge/issues");
    expect(pkg.keywords).toContain("mcp");
    expect(readFileSync(join(root, "LICENSE"), "utf8")).toContain("mcp-bridge contributors");
  });
});
